export type { MonthSpan } from './calendar.js';
export { monthSpan } from './calendar.js';
export { default as statisticsRoutes } from './routes.js';
export { StatisticsService } from './statistics.service.js';
