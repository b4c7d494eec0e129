import { contract } from '@nestegg/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';

const { listMembers, setMemberPlan, setMemberRole, setMemberStatus, deleteMember } = contract.admin;

/** The caller's member id (the admin guard has already required a session). */
const actorOf = (request: FastifyRequest) => sessionOf(request).memberId;

/** Member administration (`/api/admin/members...`): list, plan, role, status, deletion. Admin-only. */
export default async function memberAdministrationModule(app: FastifyInstance) {
  const { members } = app.services;
  registerContractRouter(
    app,
    { listMembers, setMemberPlan, setMemberRole, setMemberStatus, deleteMember },
    {
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
    },
  );
}
