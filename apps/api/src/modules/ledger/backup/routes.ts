import { Readable } from 'node:stream';
import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';
import type { RestoreSession } from './restore-parser.js';

/** A restore body the worker is checking (its head already valid); only this module's JSON parser makes one. */
class ParsedBackup {
  constructor(readonly session: RestoreSession) {}
}

const { export: exportRoute, restore: restoreRoute } = contract.ledger.backup;

/**
 * The backup routes as served. The contract documents the shapes; the server checks them elsewhere: the
 * restore body is validated against the contract's schema on the worker thread (this module's JSON parser),
 * and the export is a stream written item by item in the contract's input types (and tested against the
 * schema), which response validation cannot read.
 */
const served = {
  export: {
    ...exportRoute,
    responses: { ...exportRoute.responses, 200: z.custom<Readable>((value) => value instanceof Readable) },
  },
  restore: {
    ...restoreRoute,
    body: z.custom<ParsedBackup>((value) => value instanceof ParsedBackup, 'expected a JSON backup'),
  },
};

/**
 * Backup export and restore (`/api/account/backup`, `/api/account/restore`; premium by the contract). In
 * this module's own context JSON bodies get their own limit (`RESTORE_MAX_BYTES`) and are parsed off the
 * main thread: the guard (an `onRequest` hook) has already refused other callers before a byte is read.
 */
export default async function backupModule(app: FastifyInstance): Promise<void> {
  const { backup } = app.services;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: app.env.RESTORE_MAX_BYTES },
    async (_request: unknown, body: Buffer | string) => new ParsedBackup(await backup.open(body as Buffer)),
  );
  app.addHook('onClose', () => backup.close());

  registerContractRouter(app, served, {
    export: async ({ request, reply }) => {
      const { stream, filename } = await backup.exportBackup(sessionOf(request).memberId);
      reply.header('content-type', 'application/json; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="${filename}"`);
      return { status: 200, body: stream };
    },
    restore: async ({ body, request }) => ({
      status: 200,
      body: await backup.restore(sessionOf(request).memberId, body.session),
    }),
  });
}
