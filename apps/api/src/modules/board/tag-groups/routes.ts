import { tagGroupsContract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';

/** Board tag groups: the list for writers (login) and their management (admin; the contract guards it). */
export default async function tagGroupsModule(app: FastifyInstance): Promise<void> {
  const { tagGroups } = app.services;
  const noContent = { status: 204, body: undefined } as const;
  registerContractRouter(app, tagGroupsContract, {
    tagGroups: async ({ query }) => ({ status: 200, body: { items: await tagGroups.list(query.category) } }),
    createTagGroup: async ({ body }) => ({ status: 201, body: await tagGroups.createGroup(body) }),
    reorderTagGroups: async ({ body }) => {
      await tagGroups.reorderGroups(body.ids);
      return noContent;
    },
    updateTagGroup: async ({ params, body }) => ({ status: 200, body: await tagGroups.updateGroup(params.id, body) }),
    deleteTagGroup: async ({ params }) => {
      await tagGroups.deleteGroup(params.id);
      return noContent;
    },
    createBoardTag: async ({ params, body }) => ({
      status: 201,
      body: await tagGroups.createTag(params.id, body.name),
    }),
    reorderBoardTags: async ({ params, body }) => {
      await tagGroups.reorderTags(params.id, body.ids);
      return noContent;
    },
    updateBoardTag: async ({ params, body }) => ({
      status: 200,
      body: await tagGroups.updateTag(params.id, body.name),
    }),
    deleteBoardTag: async ({ params }) => {
      await tagGroups.deleteTag(params.id);
      return noContent;
    },
  });
}
