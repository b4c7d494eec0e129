/** Tag groups: the tags a board offers. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses, IdSchema, listOf, meta, routerOptions } from '../common.js';
import { text } from '../text.js';
import { BoardCategorySchema, boardCategories } from './shared.js';

const c = initContract();

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

/** Tag group routes. */
export const tagGroupsContract = c.router(
  {
    tagGroups: {
      method: 'GET',
      path: '/api/board/tag-groups',
      summary: 'Tag groups writable on a board (groups without boards appear everywhere)',
      query: TagGroupQuerySchema,
      responses: { 200: TagGroupListSchema, ...errorResponses(400, 401) },
      metadata: meta('login'),
    },
  },
  routerOptions,
);
