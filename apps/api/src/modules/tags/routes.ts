import type { FastifyInstance } from 'fastify';

/** Ledger tags (`/api/account/tags`) (placeholder: the issue 9 work replaces it; until then these routes answer 404). */
export default async function tagsModule(_app: FastifyInstance): Promise<void> {}
