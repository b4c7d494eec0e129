export { investmentServices } from './compose.js';
export { default as investmentsRoutes } from './routes.js';
