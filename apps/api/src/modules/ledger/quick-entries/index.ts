export { QuickEntriesService } from './quick-entries.service.js';
export { toQuickEntryResponse } from './quick-entry.view.js';
export { default as quickEntriesRoutes } from './routes.js';
