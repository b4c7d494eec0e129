import type { FastifyInstance } from 'fastify';

/** Delta sync (`/api/account/changes`) (placeholder: the issue 9 work replaces it; until then these routes answer 404). */
export default async function changesModule(_app: FastifyInstance): Promise<void> {}
