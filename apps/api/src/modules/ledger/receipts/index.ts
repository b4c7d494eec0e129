export { receiptsService } from './compose.js';
export { default as receiptsRoutes } from './routes.js';
