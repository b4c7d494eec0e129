export { CommentsService } from './comments.service.js';
export { default as commentsRoutes } from './routes.js';
