/**
 * Issue 36 ("Strict input", "Validation messages"): a field or query parameter the contract does not name is
 * refused, at every depth (C44).
 */
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf } from './test/client.js';
import { PNG_FILE } from './test/document/requests.js';
import { test } from './test/fixtures.js';

type Problem = { status: number; code: string; detail?: string; errors?: Array<{ path: string; message: string }> };

const send = async (
  app: FastifyInstance,
  method: string,
  url: string,
  options: { token?: string; payload?: unknown; headers?: Record<string, string> } = {},
) => {
  const response = await app.inject({
    method: method as 'GET',
    url,
    headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
    ...(options.payload === undefined ? {} : { payload: options.payload as string }),
  });
  const isProblem = String(response.headers['content-type']).startsWith('application/problem+json');
  const problem = isProblem && response.body ? (response.json() as Problem) : undefined;
  return { status: response.statusCode, problem, response };
};

const UNKNOWN_FIELD = 'not a field of this request';

describe('a field the contract does not name is refused, at every depth (C44)', () => {
  test('a body field: 400 naming it, nothing created', async ({ app, premium }) => {
    const payload = { name: 'Cash', type: 'CASH', colour: 'red' };
    const refused = await send(app, 'POST', '/api/account/wallets', { token: premium.token, payload });
    expect(refused.status).toBe(400);
    expect(refused.problem).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'body.colour', message: UNKNOWN_FIELD }],
    });
    expect(bodyOf(await premium.api.ledger.wallets.list(), 200).items).toEqual([]);
  });

  test('in the items of a restore body, its head and its entries (checked apart)', async ({ app, premium }) => {
    const entry = { type: 'EXPENSE' as const, amount: 1000, date: '2026-01-02' };
    for (const [payload, path] of [
      [{ tags: [{ name: 'trip', colour: 'red' }] }, 'body.tags.0.colour'],
      [{ tags: [{ name: 'trip' }], colour: 'red' }, 'body.colour'],
      [{ entries: [entry, { ...entry, colour: 'red' }] }, 'body.entries.1.colour'],
    ] as const) {
      const refused = await send(app, 'POST', '/api/account/restore', { token: premium.token, payload });
      expect(refused.status, path).toBe(400);
      expect(refused.problem?.errors, path).toEqual([{ path, message: UNKNOWN_FIELD }]);
    }
    bodyOf(await premium.api.ledger.backup.restore({ body: { tags: [{ name: 'trip' }], entries: [entry] } }), 200);
  });

  test('a query parameter of a route that reads its query', async ({ app, premium }) => {
    const refused = await send(app, 'GET', '/api/account/entries?type=EXPENSE&categry=Food', { token: premium.token });
    expect(refused.status).toBe(400);
    expect(refused.problem?.errors).toEqual([
      { path: 'query.categry', message: 'not a query parameter of this request' },
    ]);
    bodyOf(await premium.api.ledger.entries.list({ query: { type: 'EXPENSE' } }), 200);
  });

  test('an upload form keeps its other fields: only the file is read', async ({ free }) => {
    const form = new FormData();
    form.append('caption', 'a seedling');
    form.append('file', new File([new Uint8Array(PNG_FILE)], 'x.png', { type: 'image/png' }));
    bodyOf(await free.api.board.uploadImage({ body: form as never }), 201);
  });
});
