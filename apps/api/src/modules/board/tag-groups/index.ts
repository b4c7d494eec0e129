export { default as tagGroupsRoutes } from './routes.js';
export { TagGroupsService } from './tag-groups.service.js';
