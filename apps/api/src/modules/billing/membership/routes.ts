import { contract } from '@nestegg/contract';
import { testModeForcedInProduction } from '@nestegg/membership';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';

const STORE_NOTIFICATION_PATH = contract.billing.storeNotification.path;

/** The membership area (`/api/billing/...`): products, both stores' purchases, subscription, store notifications. */
export default async function billingModule(app: FastifyInstance) {
  const { billing, storeNotifications, appStoreNotifications } = app.services;
  if (testModeForcedInProduction(app.env)) {
    app.log.warn(
      'BILLING_TEST_MODE is on in production (BILLING_TEST_MODE_FORCE): test- tokens grant PREMIUM without payment',
    );
  }

  // The push is authenticated before its body is even read: an unauthenticated caller learns nothing.
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url === STORE_NOTIFICATION_PATH) {
      await storeNotifications.authenticate(request.headers.authorization);
    }
  });

  registerContractRouter(app, contract.billing, {
    products: async () => ({ status: 200, body: { products: billing.products() } }),
    subscription: async ({ request }) => ({
      status: 200,
      body: await billing.subscription(sessionOf(request).memberId),
    }),
    verify: async ({ body, request }) => {
      const { pending, subscription } = await billing.verify(sessionOf(request).memberId, body);
      return { status: pending ? 202 : 200, body: subscription };
    },
    cancel: async ({ request }) => {
      const cancelled = await billing.cancel(sessionOf(request).memberId);
      return 'inStore' in cancelled ? { status: 202, body: cancelled.inStore } : { status: 200, body: cancelled.done };
    },
    resume: async ({ request }) => {
      const resumed = await billing.resume(sessionOf(request).memberId);
      return 'inStore' in resumed ? { status: 202, body: resumed.inStore } : { status: 200, body: resumed.done };
    },
    restore: async ({ request }) => ({ status: 200, body: await billing.restore(sessionOf(request).memberId) }),
    storeNotification: async ({ body }) => {
      await storeNotifications.receive(body);
      return { status: 204, body: undefined };
    },
    appStoreAccountToken: async ({ request }) => ({
      status: 200,
      body: await billing.appAccountToken(sessionOf(request).memberId),
    }),
    appStoreVerify: async ({ body, request }) => {
      const { pending, subscription } = await billing.verifyAppStore(sessionOf(request).memberId, body);
      return { status: pending ? 202 : 200, body: subscription };
    },
    appStoreNotification: async ({ body }) => {
      await appStoreNotifications.receive(body);
      return { status: 200, body: undefined };
    },
  });
}
