export { EntriesService } from './entries.service.js';
export { entryTagNames, trimDecimal } from './entry.view.js';
export { PendingEntries, type PendingExpense } from './pending-entries.js';
export { default as entriesRoutes } from './routes.js';
