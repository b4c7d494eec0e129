export { ModerationService } from './moderation.service.js';
export { default as moderationRoutes } from './routes.js';
