export { RecurringsService, toRecurring } from './recurrings.service.js';
export { default as recurringsRoutes } from './routes.js';
