import { contract, REPORTS_PER_HOUR } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';
import { writerOf } from '../kernel/index.js';

/** Reports (`/api/board/…/report`) and the admin's review of them (`/api/board/reports…`). */
export default async function moderationModule(app: FastifyInstance): Promise<void> {
  const { moderation } = app.services;
  const { reportPost, reportComment, listReports, dismissReports, reportHistory } = contract.board;
  // One budget for both report routes, per member; an app-level hook has resolved the session before this runs.
  const reportLimit = app.rateLimit({
    max: REPORTS_PER_HOUR,
    timeWindow: '1 hour',
    keyGenerator: (request) => `report:${request.session?.memberId ?? request.ip}`,
  });
  registerContractRouter(
    app,
    { reportPost, reportComment, listReports, dismissReports, reportHistory },
    {
      reportPost: {
        hooks: { onRequest: reportLimit },
        handler: async ({ params, body, request }) => {
          await moderation.report(writerOf(request), 'POST', params.id, body.reason);
          return { status: 204, body: undefined };
        },
      },
      reportComment: {
        hooks: { onRequest: reportLimit },
        handler: async ({ params, body, request }) => {
          await moderation.report(writerOf(request), 'COMMENT', params.id, body.reason);
          return { status: 204, body: undefined };
        },
      },
      listReports: async ({ query }) => ({ status: 200, body: await moderation.list(query) }),
      dismissReports: async ({ body, request }) => {
        await moderation.dismiss(sessionOf(request).memberId, body.targetType, body.targetId);
        return { status: 204, body: undefined };
      },
      reportHistory: async ({ query }) => ({ status: 200, body: await moderation.history(query) }),
    },
  );
}
