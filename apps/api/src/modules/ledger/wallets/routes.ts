import { contract } from '@nestegg/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { isPremiumOrAdmin, sessionOf } from '../../../lib/session.js';
import type { WalletCaller } from './wallets.service.js';

/** The caller; the FREE per-type wallet limit applies to FREE members who are not ADMIN. */
function callerOf(request: FastifyRequest): WalletCaller {
  const session = sessionOf(request);
  return { memberId: session.memberId, limited: !isPremiumOrAdmin(session) };
}

const memberOf = (request: FastifyRequest) => sessionOf(request).memberId;

/** Wallets and net worth (`/api/account/wallets`, `/api/account/networth`). */
export default async function walletsModule(app: FastifyInstance): Promise<void> {
  const { wallets } = app.services;
  registerContractRouter(app, contract.ledger.wallets, {
    list: async ({ request }) => ({ status: 200, body: { items: await wallets.list(memberOf(request)) } }),
    create: async ({ body, request }) => ({ status: 201, body: await wallets.create(callerOf(request), body) }),
    reorder: async ({ body, request }) => {
      await wallets.reorder(memberOf(request), body.ids);
      return { status: 204, body: undefined };
    },
    get: async ({ params, request }) => ({ status: 200, body: await wallets.get(memberOf(request), params.id) }),
    update: async ({ params, body, request }) => ({
      status: 200,
      body: await wallets.update(callerOf(request), params.id, body),
    }),
    delete: async ({ params, request }) => {
      await wallets.delete(memberOf(request), params.id);
      return { status: 204, body: undefined };
    },
    netWorth: async ({ request }) => ({ status: 200, body: await wallets.netWorth(memberOf(request)) }),
    netWorthTrend: async ({ query, request }) => ({
      status: 200,
      body: await wallets.netWorthTrend(memberOf(request), query),
    }),
  });
}
