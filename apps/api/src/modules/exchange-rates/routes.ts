import type { FastifyInstance } from 'fastify';

/** Exchange rates (`/api/fx/rate`) (placeholder: the issue 9 work replaces it; until then these routes answer 404). */
export default async function exchangeRatesModule(_app: FastifyInstance): Promise<void> {}
