import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';

/**
 * Card notifications and pending entries (`/api/account/entries/{parse,notification,pending/count}`,
 * `/api/account/entries/{id}/confirm`); the entries module serves the other entry routes. Parsing needs a
 * login; the rest is premium (contract metadata).
 */
export default async function cardNotificationsModule(app: FastifyInstance): Promise<void> {
  const { cardNotifications } = app.services;
  const { parse, notification, confirm, pendingCount } = contract.ledger.entries;
  registerContractRouter(
    app,
    { parse, notification, confirm, pendingCount },
    {
      parse: async ({ body }) => ({ status: 200, body: cardNotifications.parse(body) }),
      notification: async ({ body, request }) => {
        const result = await cardNotifications.notify(sessionOf(request).memberId, body);
        return result.created ? { status: 201, body: result } : { status: 200, body: result };
      },
      confirm: async ({ params, request }) => ({
        status: 200,
        body: await cardNotifications.confirm(sessionOf(request).memberId, params.id),
      }),
      pendingCount: async ({ request }) => ({
        status: 200,
        body: await cardNotifications.pendingCount(sessionOf(request).memberId),
      }),
    },
  );
}
