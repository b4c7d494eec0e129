import type { FastifyInstance } from 'fastify';
import { sessionOf } from '../../../lib/session.js';
import type { AuthHandlers } from './handlers.js';
import { columnsToMemberResponse, toMemberResponse } from './member.view.js';
import { assertRecentlyReauthenticated } from './reauthentication.js';

export function profileHandlers(
  app: FastifyInstance,
): AuthHandlers<'getProfile' | 'updateProfile' | 'updateProfileImage' | 'points' | 'pointHistory' | 'deleteMe'> {
  const { profiles, points, accountDeletion } = app.services;
  const { db } = app;
  return {
    getProfile: async ({ request }) => ({
      status: 200,
      body: columnsToMemberResponse(await profiles.get(sessionOf(request).memberId)),
    }),
    updateProfile: async ({ body, request }) => ({
      status: 200,
      body: toMemberResponse(await profiles.update(sessionOf(request).memberId, body)),
    }),
    updateProfileImage: async ({ body, request }) => ({
      status: 200,
      body: toMemberResponse(await profiles.setImage(sessionOf(request).memberId, body.dataUrl)),
    }),
    points: async ({ request }) => ({
      status: 200,
      body: { points: await points.balance(db, sessionOf(request).memberId) },
    }),
    pointHistory: async ({ request }) => {
      const items = await points.history(db, sessionOf(request).memberId);
      return {
        status: 200,
        body: { items: items.map((item) => ({ ...item, createdAt: item.createdAt.toISOString() })) },
      };
    },
    deleteMe: async ({ request }) => {
      const session = sessionOf(request);
      assertRecentlyReauthenticated(session, app.services.clock);
      await accountDeletion.deleteMemberCompletely(session.memberId);
      return { status: 204, body: undefined };
    },
  };
}
