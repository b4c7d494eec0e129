export { PostsService, WRITING_POINTS } from './posts.service.js';
export { default as postsRoutes, memberKey } from './routes.js';
