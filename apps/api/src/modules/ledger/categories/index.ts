export { CategoriesService } from './categories.service.js';
export {
  assertNotOwnParent,
  assertPlacementAllowed,
  assertValidParent,
  assertWholeSiblingGroup,
  categoryHasChildren,
  groupOf,
  mapCategoryWriteErrors,
  placementAfter,
} from './category-tree.js';
export { default as categoriesRoutes } from './routes.js';
