import type { FastifyInstance } from 'fastify';

/** Quick-entry templates (`/api/account/quick-entries`) (placeholder: the issue 9 work replaces it; until then these routes answer 404). */
export default async function quickEntriesModule(_app: FastifyInstance): Promise<void> {}
