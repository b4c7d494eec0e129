export { EntriesService } from './entries.service.js';
export { entryTagNames, entryWithTagsColumns, toEntryResponse, trimDecimal } from './entry.view.js';
export { MonthCompleteBonus } from './month-complete.js';
export { default as entriesRoutes } from './routes.js';
