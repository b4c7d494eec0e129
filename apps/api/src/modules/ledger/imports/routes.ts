import { contract, STATEMENT_MAX_BYTES } from '@nestegg/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';
import { acceptUploads, readSingleUpload, type Upload } from '../../../plugins/multipart.js';

/** The upload the pre-validation hook read, kept for the handler (the contract's body holds only the bytes). */
const uploads = new WeakMap<FastifyRequest, Upload>();

/** Statement import (`/api/account/imports…`, `/api/account/import-profiles…`): every member may import. */
export default async function importsModule(app: FastifyInstance): Promise<void> {
  await acceptUploads(app);
  const { statementImports } = app.services;
  app.addHook('onClose', () => statementImports.close());
  const member = (request: FastifyRequest) => sessionOf(request).memberId;
  registerContractRouter(app, contract.ledger.imports, {
    upload: {
      hooks: {
        // After the guard, so the limit is per member; the daily quota is counted in the service.
        onRequest: app.rateLimit({
          max: 10,
          timeWindow: '1 minute',
          keyGenerator: (request) => `statement-import:${request.session?.memberId ?? request.ip}`,
        }),
        preValidation: async (request: FastifyRequest) => {
          const upload = await readSingleUpload(request, { field: 'file', maxBytes: STATEMENT_MAX_BYTES });
          uploads.set(request, upload);
          request.body = { file: upload.bytes };
        },
      },
      handler: async ({ request }) => {
        const session = sessionOf(request);
        const caller = { memberId: session.memberId, plan: session.plan, isAdmin: session.role === 'ADMIN' };
        return { status: 201, body: await statementImports.upload(caller, uploads.get(request)!) };
      },
    },
    list: async ({ query, request }) => ({
      status: 200,
      body: await statementImports.list(member(request), query.size, query.cursor),
    }),
    get: async ({ params, request }) => ({ status: 200, body: await statementImports.get(member(request), params.id) }),
    rows: async ({ params, query, request }) => ({
      status: 200,
      body: await statementImports.rows(member(request), params.id, query),
    }),
    adjust: async ({ params, body, request }) => ({
      status: 200,
      body: await statementImports.adjust(member(request), params.id, body),
    }),
    commit: async ({ params, request }) => ({
      status: 200,
      body: await statementImports.commit(member(request), params.id),
    }),
    undo: async ({ params, request }) => ({
      status: 200,
      body: await statementImports.undo(member(request), params.id),
    }),
    discard: async ({ params, request }) => {
      await statementImports.discard(member(request), params.id);
      return { status: 204, body: undefined };
    },
    profiles: async ({ request }) => ({ status: 200, body: await statementImports.profiles(member(request)) }),
    deleteProfile: async ({ params, request }) => {
      await statementImports.deleteProfile(member(request), params.id);
      return { status: 204, body: undefined };
    },
  });
}
