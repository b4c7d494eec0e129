/** Tag groups: the tags a board offers, and their management by administrators. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  IdParamSchema,
  IdSchema,
  listOf,
  meta,
  nameSchema,
  problems,
  ReorderBodySchema,
  routerOptions,
  withCommonProblems,
  withOpenApi,
} from '../common.js';
import { text } from '../text.js';
import { BOARD_TAG_MAX, BoardCategorySchema, boardCategories } from './shared.js';

const c = initContract();

/** Longest tag group name. */
export const TAG_GROUP_NAME_MAX = 50;

export const BoardTagSchema = z.object({ id: IdSchema, name: text(), sortOrder: z.number().int() });
export type BoardTag = z.infer<typeof BoardTagSchema>;
export const TagGroupSchema = z.object({
  id: IdSchema,
  name: text(),
  sortOrder: z.number().int(),
  boards: z.array(BoardCategorySchema).describe('Boards the group is shown on; empty = every board'),
  tags: z.array(BoardTagSchema),
});
export type TagGroup = z.infer<typeof TagGroupSchema>;
export const TagGroupListSchema = listOf(TagGroupSchema);
export type TagGroupList = z.infer<typeof TagGroupListSchema>;
export const TagGroupQuerySchema = z.object({
  category: z
    .enum([...boardCategories, ''])
    .optional()
    .transform((v) => (v ? v : undefined))
    .describe('Board; blank or omitted returns every group'),
});
export type TagGroupQuery = z.infer<typeof TagGroupQuerySchema>;

const TagGroupBoardsSchema = withOpenApi(
  z
    .array(BoardCategorySchema)
    .max(boardCategories.length)
    .refine((boards) => new Set(boards).size === boards.length, 'boards must be unique')
    .describe('Boards the group is shown on; empty = every board'),
  { uniqueItems: true },
);

export const CreateTagGroupRequestSchema = z.object({
  name: nameSchema(TAG_GROUP_NAME_MAX).describe('Unique among the groups'),
  boards: TagGroupBoardsSchema.default([]),
});
export type CreateTagGroupRequest = z.infer<typeof CreateTagGroupRequestSchema>;
export const UpdateTagGroupRequestSchema = z
  .object({
    name: nameSchema(TAG_GROUP_NAME_MAX).optional().describe('Unique among the groups'),
    boards: TagGroupBoardsSchema.optional(),
  })
  .describe('The fields to change; absent fields stay as they are');
export type UpdateTagGroupRequest = z.infer<typeof UpdateTagGroupRequestSchema>;
export const BoardTagRequestSchema = z.object({
  name: nameSchema(BOARD_TAG_MAX).describe('Unique within its group'),
});
export type BoardTagRequest = z.infer<typeof BoardTagRequestSchema>;

/** Tag group routes: the list for writers, and its management (admin). */
export const tagGroupsContract = withCommonProblems(
  c.router(
    {
      tagGroups: {
        method: 'GET',
        path: '/api/board/tag-groups',
        summary: 'Tag groups writable on a board (groups without boards appear everywhere)',
        query: TagGroupQuerySchema,
        responses: { 200: TagGroupListSchema },
        metadata: meta('login'),
      },
      createTagGroup: {
        method: 'POST',
        path: '/api/board/tag-groups',
        summary: 'Create a tag group (goes last); a name another group has → 409 DUPLICATE_NAME',
        body: CreateTagGroupRequestSchema,
        responses: { 201: TagGroupSchema, ...problems('DUPLICATE_NAME') },
        metadata: meta('admin'),
      },
      reorderTagGroups: {
        method: 'PUT',
        path: '/api/board/tag-groups/reorder',
        summary: 'New order of all tag groups: every group id, each once (else 400 INVALID_REORDER)',
        body: ReorderBodySchema,
        responses: { 204: c.noBody(), ...problems('INVALID_REORDER') },
        metadata: meta('admin'),
      },
      updateTagGroup: {
        method: 'PUT',
        path: '/api/board/tag-groups/:id',
        summary: 'Rename a tag group or change its boards',
        pathParams: IdParamSchema,
        body: UpdateTagGroupRequestSchema,
        responses: { 200: TagGroupSchema, ...problems('DUPLICATE_NAME') },
        metadata: meta('admin'),
      },
      deleteTagGroup: {
        method: 'DELETE',
        path: '/api/board/tag-groups/:id',
        summary: 'Delete a tag group and its tags (posts keep the tag names they carry)',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody() },
        metadata: meta('admin'),
      },
      createBoardTag: {
        method: 'POST',
        path: '/api/board/tag-groups/:id/tags',
        summary: 'Add a tag to a group (goes last); a name the group has → 409 DUPLICATE_NAME',
        pathParams: IdParamSchema,
        body: BoardTagRequestSchema,
        responses: { 201: BoardTagSchema, ...problems('DUPLICATE_NAME') },
        metadata: meta('admin'),
      },
      reorderBoardTags: {
        method: 'PUT',
        path: '/api/board/tag-groups/:id/tags/reorder',
        summary: "New order of a group's tags: every tag id of the group, each once (else 400 INVALID_REORDER)",
        pathParams: IdParamSchema,
        body: ReorderBodySchema,
        responses: { 204: c.noBody(), ...problems('INVALID_REORDER') },
        metadata: meta('admin'),
      },
      updateBoardTag: {
        method: 'PUT',
        path: '/api/board/tags/:id',
        summary: 'Rename a board tag (posts keep the name they carry)',
        pathParams: IdParamSchema,
        body: BoardTagRequestSchema,
        responses: { 200: BoardTagSchema, ...problems('DUPLICATE_NAME') },
        metadata: meta('admin'),
      },
      deleteBoardTag: {
        method: 'DELETE',
        path: '/api/board/tags/:id',
        summary: 'Delete a board tag (posts keep the name they carry)',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody() },
        metadata: meta('admin'),
      },
    },
    routerOptions,
  ),
);
