import type { FastifyInstance } from 'fastify';

/** Member categories (`/api/account/categories`) (placeholder: the issue 9 work replaces it; until then these routes answer 404). */
export default async function categoriesModule(_app: FastifyInstance): Promise<void> {}
