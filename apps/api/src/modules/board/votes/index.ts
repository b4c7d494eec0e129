export { default as votesRoutes } from './routes.js';
export { VotesService } from './votes.service.js';
