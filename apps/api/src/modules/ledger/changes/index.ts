export { ChangesService } from './changes.service.js';
export { default as changesRoutes } from './routes.js';
export { syncRenderers } from './sync-renderers.js';
