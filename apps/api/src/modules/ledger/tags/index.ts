export { default as tagsRoutes } from './routes.js';
export { TagsService } from './tags.service.js';
