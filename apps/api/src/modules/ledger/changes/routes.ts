import { type Changes, ChangesSchema, contract } from '@nestegg/contract';
import { ResponseValidationError } from '@ts-rest/core';
import type { FastifyInstance } from 'fastify';
import { jsonText, registerContractRouter } from '../../../lib/contract-router.js';
import { ContractDriftError, firstDifference } from '../../../lib/response-check.js';
import { sessionOf } from '../../../lib/session.js';
import type { ChangesPage } from './changes.service.js';

/**
 * Delta sync (`GET /api/account/changes`): what changed in the caller's ledger since a cursor. Its entries
 * arrive as the JSON text the statement wrote and are sent as they are (decision L35), so the route writes
 * its own JSON and, outside production, checks all of it against the contract as the other routes' answers
 * are checked (P20).
 */
export default async function changesModule(app: FastifyInstance): Promise<void> {
  const { changes } = app.services;
  const checked = app.env.NODE_ENV !== 'production';
  registerContractRouter(
    app,
    contract.ledger.changes,
    {
      list: async ({ query, request, reply }) => {
        const page = await changes.since({
          memberId: sessionOf(request).memberId,
          since: query.since,
          limit: query.limit,
        });
        const json = changesJson(page);
        if (checked) checkAgainstContract(json.toString());
        return { status: 200, body: jsonText<Changes>(reply, json) };
      },
    },
    { validatesOwnResponses: true },
  );
}

/**
 * The answer's JSON in UTF-8: the head in the contract's key order with the entries' bytes spliced in as the
 * statement wrote them (decision P29: a string would cost decoding them, measuring them and encoding them back).
 */
export function changesJson({ head, entriesJson }: ChangesPage): Buffer {
  const { cursor, hasMore, changed, deleted } = head;
  const { entries: _empty, ...others } = changed;
  const before = `{"cursor":${JSON.stringify(cursor)},"hasMore":${hasMore},"changed":{"entries":`;
  const after = `,${JSON.stringify(others).slice(1)},"deleted":${JSON.stringify(deleted)}}`;
  return Buffer.concat([Buffer.from(before), entriesJson, Buffer.from(after)]);
}

/** The whole answer, entries included, must pass the contract unchanged (no field it does not name, no default). */
export function checkAgainstContract(text: string): void {
  const route = contract.ledger.changes.list;
  const body: unknown = JSON.parse(text);
  const parsed = ChangesSchema.safeParse(body);
  if (!parsed.success) throw new ResponseValidationError(route, parsed.error);
  const where = firstDifference(body, parsed.data);
  if (where !== null) throw new ContractDriftError(route, 200, where);
}
