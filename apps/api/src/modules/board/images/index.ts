export { boardImagesService } from './compose.js';
export { default as boardImagesRoutes } from './routes.js';
