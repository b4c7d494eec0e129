import { contract } from '@nestegg/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerContractRouter } from '../../lib/contract-router.js';
import { sessionOf } from '../../lib/session.js';

/** The caller's member id (the admin guard has already required a session). */
const actorOf = (request: FastifyRequest) => sessionOf(request).memberId;

/** The admin area (`/api/admin/...`): members, sign-up switch, default categories. Every route is admin-only. */
export default async function adminModule(app: FastifyInstance) {
  const { members, settings, defaultCategories } = app.services;
  registerContractRouter(app, contract.admin, {
    listMembers: async ({ query }) => ({ status: 200, body: await members.list(query) }),
    setMemberPlan: async ({ params, body, request }) => ({
      status: 200,
      body: await members.setPlan(actorOf(request), params.id, body.plan),
    }),
    setMemberRole: async ({ params, body, request }) => ({
      status: 200,
      body: await members.setRole(actorOf(request), params.id, body.role),
    }),
    setMemberStatus: async ({ params, body, request }) => ({
      status: 200,
      body: await members.setStatus(actorOf(request), params.id, body.status),
    }),
    deleteMember: async ({ params, request }) => {
      await members.delete(actorOf(request), params.id);
      return { status: 204, body: undefined };
    },

    getSignupSetting: async () => ({ status: 200, body: { enabled: await settings.isSignupEnabled() } }),
    setSignupSetting: async ({ body }) => {
      await settings.setSignupEnabled(body.enabled);
      return { status: 200, body: { enabled: body.enabled } };
    },

    listDefaultCategories: async () => ({ status: 200, body: { items: await defaultCategories.list() } }),
    createDefaultCategory: async ({ body }) => ({ status: 201, body: await defaultCategories.create(body) }),
    reorderDefaultCategories: async ({ body }) => {
      await defaultCategories.reorder(body.ids);
      return { status: 204, body: undefined };
    },
    updateDefaultCategory: async ({ params, body }) => ({
      status: 200,
      body: await defaultCategories.update(params.id, body),
    }),
    deleteDefaultCategory: async ({ params }) => {
      await defaultCategories.delete(params.id);
      return { status: 204, body: undefined };
    },
  });
}
