import type { FastifyInstance } from 'fastify';

/** Wallets and net worth (`/api/account/wallets`, `/api/account/networth`) (placeholder: the issue 9 work replaces it; until then these routes answer 404). */
export default async function walletsModule(_app: FastifyInstance): Promise<void> {}
