/** Member categories (two levels) and tags. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CategoryNameSchema,
  CategoryTypeSchema,
  IdParamSchema,
  IdSchema,
  listOf,
  meta,
  problems,
  ReorderBodySchema,
  routerOptions,
  SortOrderSchema,
  withCommonProblems,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { text } from '../text.js';
import { TagNameSchema } from './shared.js';

const c = initContract();

// ---------------------------------------------------------------------------
// Categories
// ---------------------------------------------------------------------------

export const CategorySchema = z.object({
  id: IdSchema,
  name: text(),
  type: CategoryTypeSchema,
  parentId: IdSchema.nullable().describe('null for a top-level category'),
  sortOrder: SortOrderSchema,
});
export type Category = z.infer<typeof CategorySchema>;
export const CategoryListSchema = listOf(CategorySchema);
export type CategoryList = z.infer<typeof CategoryListSchema>;
export const CategoryListQuerySchema = z.object({ type: CategoryTypeSchema.optional() });
export type CategoryListQuery = z.infer<typeof CategoryListQuerySchema>;

export const CreateCategoryRequestSchema = z.object({
  name: CategoryNameSchema,
  type: CategoryTypeSchema,
  parentId: IdSchema.nullable()
    .optional()
    .describe('A top-level category of the same type; omit or null for a top-level category'),
});
export type CreateCategoryRequest = z.infer<typeof CreateCategoryRequestSchema>;
/**
 * Renaming a category renames its uses (entries, budgets, recurrings, quick entries) in the same transaction.
 * A type change is refused (409 `CATEGORY_IN_USE`) while the category or one of its sub-categories is used.
 */
export const UpdateCategoryRequestSchema = CreateCategoryRequestSchema.partial();
export type UpdateCategoryRequest = z.infer<typeof UpdateCategoryRequestSchema>;

export const CategoryImportResultSchema = z.object({
  imported: z.number().int().min(0),
  skipped: z.number().int().min(0).describe('Default categories whose name already existed'),
});
export type CategoryImportResult = z.infer<typeof CategoryImportResultSchema>;

// ---------------------------------------------------------------------------
// Tags
// ---------------------------------------------------------------------------

export const TagSchema = z.object({ id: IdSchema, name: text(), sortOrder: SortOrderSchema });
export type Tag = z.infer<typeof TagSchema>;
export const TagListSchema = listOf(TagSchema);
export type TagList = z.infer<typeof TagListSchema>;
export const TagRequestSchema = z.object({ name: TagNameSchema });
export type TagRequest = z.infer<typeof TagRequestSchema>;

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

export const categoriesContract = withCommonProblems(
  c.router(
    {
      list: {
        method: 'GET',
        path: '/api/account/categories',
        summary: 'Categories (flat, parents before children, by sortOrder)',
        query: CategoryListQuerySchema,
        responses: { 200: CategoryListSchema },
        metadata: meta('login'),
      },
      create: {
        method: 'POST',
        path: '/api/account/categories',
        summary: 'Create a category (goes last among its siblings)',
        body: CreateCategoryRequestSchema,
        responses: {
          201: CategorySchema,
          ...problems('NOT_FOUND', 'CATEGORY_TOO_DEEP', 'CATEGORY_TYPE_MISMATCH', 'DUPLICATE_CATEGORY_NAME'),
        },
        metadata: meta('login'),
      },
      reorder: {
        method: 'PUT',
        path: '/api/account/categories/reorder',
        summary: 'New order of one sibling group: every id of one (type, parent), each once',
        body: ReorderBodySchema,
        responses: { 204: c.noBody(), ...problems('INVALID_REORDER') },
        metadata: meta('login'),
      },
      import: {
        method: 'POST',
        path: '/api/account/categories/import',
        summary: 'Copy the default categories, keeping the hierarchy; same names are skipped',
        body: c.noBody(),
        responses: { 200: CategoryImportResultSchema },
        metadata: meta('login'),
      },
      update: {
        method: 'PUT',
        path: '/api/account/categories/:id',
        summary: 'Rename, retype or move a category (two levels only)',
        pathParams: IdParamSchema,
        body: UpdateCategoryRequestSchema,
        responses: {
          200: CategorySchema,
          ...problems(
            'INVALID_PARENT',
            'CATEGORY_TOO_DEEP',
            'CATEGORY_TYPE_MISMATCH',
            'CATEGORY_HAS_CHILDREN',
            'CATEGORY_IN_USE',
            'DUPLICATE_CATEGORY_NAME',
          ),
        },
        metadata: meta('login'),
      },
      delete: {
        method: 'DELETE',
        path: '/api/account/categories/:id',
        summary: 'Delete a category (refused while it has children); its uses keep the name',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody(), ...problems('CATEGORY_HAS_CHILDREN') },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);

export const tagsContract = withCommonProblems(
  c.router(
    {
      list: {
        method: 'GET',
        path: '/api/account/tags',
        summary: 'Tags by sortOrder',
        responses: { 200: TagListSchema },
        metadata: meta('premium'),
      },
      create: {
        method: 'POST',
        path: '/api/account/tags',
        summary: 'Create a tag (goes last)',
        body: TagRequestSchema,
        responses: { 201: TagSchema, ...problems('DUPLICATE_NAME') },
        metadata: meta('premium'),
      },
      reorder: {
        method: 'POST',
        path: '/api/account/tags/reorder',
        summary: 'New order of all tags',
        body: ReorderBodySchema,
        responses: { 204: c.noBody(), ...problems('INVALID_REORDER') },
        metadata: meta('premium'),
      },
      update: {
        method: 'PUT',
        path: '/api/account/tags/:id',
        summary: 'Rename a tag (entries follow)',
        pathParams: IdParamSchema,
        body: TagRequestSchema,
        responses: { 200: TagSchema, ...problems('DUPLICATE_NAME') },
        metadata: meta('premium'),
      },
      delete: {
        method: 'DELETE',
        path: '/api/account/tags/:id',
        summary: 'Delete a tag (removed from entries)',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody() },
        metadata: meta('premium'),
      },
    },
    routerOptions,
  ),
);

/** Component names of categories and tags (see schema-names.ts). */
export const categoriesNamedSchemas: NamedSchemas = {
  Category: CategorySchema,
  CategoryList: CategoryListSchema,
  CategoryImportResult: CategoryImportResultSchema,
  Tag: TagSchema,
  TagList: TagListSchema,
  TagRequest: TagRequestSchema,
};
