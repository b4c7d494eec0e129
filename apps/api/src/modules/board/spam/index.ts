export { default as spamRoutes } from './routes.js';
export { containsSpam } from './spam-filter.js';
export { SpamKeywordsService } from './spam-keywords.service.js';
