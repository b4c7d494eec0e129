import type { Database } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import fp from 'fastify-plugin';
import type postgres from 'postgres';
import type { Env } from '../env.js';
import { openInfrastructure } from '../infrastructure.js';
import { contractRouteOf } from '../lib/contract-route.js';
import type { ApiMetrics } from '../lib/metrics.js';
import type { ReadReplicas } from '../lib/read-replicas.js';
import type { RedisClient } from '../lib/redis.js';
import { createServices, type Services } from '../services.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
    sql: postgres.Sql;
    /** The fast store (one Redis or a cluster); null without Redis configured (sessions then live in Postgres only). */
    redis: RedisClient | null;
    /** The read replicas of `DATABASE_READ_URL`; null without it (decision DB20). */
    readReplicas: ReadReplicas | null;
    services: Services;
    metrics: ApiMetrics;
  }
}

/** Opens the connections once, builds the services on them, and closes the connections with the app. */
export default fp<{ env: Env; clock?: Clock }>(
  async (app, { env, clock }) => {
    const { infrastructure, close } = await openInfrastructure(env, app.log, {
      ...(clock ? { clock } : {}),
      runtimeMetrics: env.METRICS_PORT !== 0,
    });
    // Said here, by the api it concerns, and not by the admin command, which opens the same infrastructure (decision F11).
    if (!infrastructure.redis)
      app.log.warn('REDIS_URL is not set: sessions use their Postgres backup only, counters live in memory');
    app.decorate('db', infrastructure.db);
    app.decorate('sql', infrastructure.sql);
    app.decorate<RedisClient | null>('redis', infrastructure.redis);
    app.decorate('metrics', infrastructure.metrics);
    app.decorate<ReadReplicas | null>('readReplicas', infrastructure.readReplicas);
    // Members' requests counted as they arrive, so a long job can tell whether anyone else was served during its
    // step (P35); the load balancer's probes and paths no route serves are no one to give way to.
    app.addHook('onRequest', (request, _reply, done) => {
      if (contractRouteOf(request)) infrastructure.traffic.arrived();
      done();
    });
    const services = createServices(infrastructure);
    app.decorate('services', services);
    await services.sessions.start();
    app.addHook('onClose', async () => {
      await services.sessions.stop();
      await close();
    });
  },
  { name: 'infrastructure' },
);
