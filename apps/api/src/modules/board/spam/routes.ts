import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';

/** The spam keyword list (`/api/board/spam-keywords`), admin only (the contract's metadata guards it). */
export default async function spamModule(app: FastifyInstance) {
  const { spamKeywords } = app.services;
  const { listSpamKeywords, addSpamKeyword, deleteSpamKeyword } = contract.board;
  registerContractRouter(
    app,
    { listSpamKeywords, addSpamKeyword, deleteSpamKeyword },
    {
      listSpamKeywords: async () => ({ status: 200, body: { items: await spamKeywords.list() } }),
      addSpamKeyword: async ({ body }) => ({ status: 201, body: await spamKeywords.add(body.keyword) }),
      deleteSpamKeyword: async ({ params }) => {
        await spamKeywords.delete(params.id);
        return { status: 204, body: undefined };
      },
    },
  );
}
