export { AppSettings } from './app-settings.js';
export { default as settingsRoutes } from './routes.js';
