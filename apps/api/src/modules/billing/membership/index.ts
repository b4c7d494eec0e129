export { billingServices } from './compose.js';
export { default as membershipRoutes } from './routes.js';
