export { DefaultCategoryService } from './default-categories.service.js';
export { default as defaultCategoriesRoutes } from './routes.js';
