import type { FastifyInstance } from 'fastify';

/** Ledger entries (`/api/account/entries`) (placeholder: the issue 9 work replaces it; until then these routes answer 404). */
export default async function entriesModule(_app: FastifyInstance): Promise<void> {}
