import { contract } from '@nestegg/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerContractRouter } from '../../lib/contract-router.js';
import { sessionOf } from '../../lib/session.js';
import { isSignupEnabled, setSignupEnabled } from '../settings/app-settings.js';
import {
  createDefaultCategory,
  deleteDefaultCategory,
  listDefaultCategories,
  reorderDefaultCategories,
  updateDefaultCategory,
} from './default-categories.service.js';
import { deleteMember, listMembers, setMemberPlan, setMemberRole, setMemberStatus } from './members.service.js';

/** The caller's member id (the admin guard has already required a session). */
const actorOf = (request: FastifyRequest) => sessionOf(request).memberId;

/** The admin area (`/api/admin/...`): members, sign-up switch, default categories. Every route is admin-only. */
export default async function adminModule(app: FastifyInstance) {
  registerContractRouter(app, contract.admin, {
    listMembers: async ({ query }) => ({ status: 200, body: await listMembers(app.db, query) }),
    setMemberPlan: async ({ params, body, request }) => ({
      status: 200,
      body: await setMemberPlan(app, actorOf(request), params.id, body.plan),
    }),
    setMemberRole: async ({ params, body, request }) => ({
      status: 200,
      body: await setMemberRole(app, actorOf(request), params.id, body.role),
    }),
    setMemberStatus: async ({ params, body, request }) => ({
      status: 200,
      body: await setMemberStatus(app, actorOf(request), params.id, body.status),
    }),
    deleteMember: async ({ params, request }) => {
      await deleteMember(app, actorOf(request), params.id);
      return { status: 204, body: undefined };
    },

    getSignupSetting: async () => ({ status: 200, body: { enabled: await isSignupEnabled(app.db) } }),
    setSignupSetting: async ({ body }) => {
      await setSignupEnabled(app.db, body.enabled);
      return { status: 200, body: { enabled: body.enabled } };
    },

    listDefaultCategories: async () => ({ status: 200, body: { items: await listDefaultCategories(app.db) } }),
    createDefaultCategory: async ({ body }) => ({ status: 201, body: await createDefaultCategory(app.db, body) }),
    reorderDefaultCategories: async ({ body }) => {
      await reorderDefaultCategories(app.db, body.ids);
      return { status: 204, body: undefined };
    },
    updateDefaultCategory: async ({ params, body }) => ({
      status: 200,
      body: await updateDefaultCategory(app.db, params.id, body),
    }),
    deleteDefaultCategory: async ({ params }) => {
      await deleteDefaultCategory(app.db, params.id);
      return { status: 204, body: undefined };
    },
  });
}
