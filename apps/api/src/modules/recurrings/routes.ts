import type { FastifyInstance } from 'fastify';

/** Recurring transactions (`/api/account/recurrings`) (placeholder: the issue 9 work replaces it; until then these routes answer 404). */
export default async function recurringsModule(_app: FastifyInstance): Promise<void> {}
