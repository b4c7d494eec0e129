export { CardNotificationsService } from './card-notifications.service.js';
export { default as cardNotificationsRoutes } from './routes.js';
