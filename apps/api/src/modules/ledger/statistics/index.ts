export { default as statisticsRoutes } from './routes.js';
export { StatisticsService } from './statistics.service.js';
