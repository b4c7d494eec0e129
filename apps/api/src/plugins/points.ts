import fp from 'fastify-plugin';
import { PointsService } from '../modules/points/points.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    points: PointsService;
  }
}

/** One points service for every module that awards or takes points. */
export default fp(
  async (app) => {
    app.decorate('points', new PointsService(app.env.APP_TIMEZONE));
  },
  { name: 'points' },
);
