/**
 * Issue 36 ("Strict input", "Validation messages"): a field or query parameter the contract does not name is
 * refused, at every depth (C46); each field gets one message, and an id says what it must be (C47); a method a
 * path does not have answers 405 whatever the request carries (C48); a body that is not JSON answers 415 (C49).
 */
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from './test/client.js';
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

describe('a field the contract does not name is refused, at every depth (C46)', () => {
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

  test('several unknown fields are named one by one, beside the other problems', async ({ app, premium }) => {
    const payload = { name: ' ', type: 'CASH', colour: 'red', shade: 'dark' };
    const refused = await send(app, 'POST', '/api/account/wallets', { token: premium.token, payload });
    expect(refused.problem?.errors).toEqual([
      { path: 'body.name', message: 'must contain a character other than white space' },
      { path: 'body.colour', message: UNKNOWN_FIELD },
      { path: 'body.shade', message: UNKNOWN_FIELD },
    ]);
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

describe('one message per field, and ids say what they must be (C47)', () => {
  test('a date that is not one: its shape only; an impossible day: its calendar only', async ({ premium }) => {
    for (const [date, message] of [
      ['yesterday', 'expected a date YYYY-MM-DD'],
      ['2026-02-30', 'not a calendar date'],
    ]) {
      const body = { type: 'EXPENSE' as const, amount: 1000, date: date! };
      const problem = problemOf(await premium.api.ledger.entries.create({ body }), 400, 'VALIDATION_FAILED');
      expect(problem.errors).toEqual([{ path: 'body.date', message }]);
    }
  });

  test('a blank name: the blank rule, not a length besides', async ({ premium }) => {
    for (const name of ['   ', ' '.repeat(40)]) {
      const problem = problemOf(await premium.api.ledger.tags.create({ body: { name } }), 400, 'VALIDATION_FAILED');
      expect(problem.errors).toEqual([
        { path: 'body.name', message: 'must contain a character other than white space' },
      ]);
    }
  });

  test('a value against several of its rules gets one message', async ({ premium }) => {
    const body = { type: 'EXPENSE' as const, amount: -0.5, date: '2026-01-02' };
    const problem = problemOf(await premium.api.ledger.entries.create({ body }), 400, 'VALIDATION_FAILED');
    expect(problem.errors?.map((error) => error.path)).toEqual(['body.amount']);
  });

  test('a path id that is not one names what it must be', async ({ app, premium }) => {
    for (const id of ['abc', '0', '1.5', '-1', '2147483648', 'NaN']) {
      const refused = await send(app, 'GET', `/api/account/wallets/${id}`, { token: premium.token });
      expect(refused.status, id).toBe(400);
      expect(refused.problem?.errors, id).toEqual([
        { path: 'params.id', message: 'must be a positive whole number (an id) up to 2147483647' },
      ]);
    }
  });

  test('a paging number that is not one says its range', async ({ app, premium }) => {
    const refused = await send(app, 'GET', '/api/account/entries?page=abc&size=1000', { token: premium.token });
    expect(refused.problem?.errors).toEqual([
      { path: 'query.page', message: 'must be a whole number from 1 to 2147483647' },
      { path: 'query.size', message: 'must be a whole number from 1 to 100' },
    ]);
  });
});

describe('a method a path does not have answers 405 with Allow, whatever the request carries (C48)', () => {
  test('a literal path is not an id: the methods are its own', async ({ app, premium }) => {
    for (const [method, url, allow] of [
      ['DELETE', '/api/account/categories/reorder', 'PUT'],
      ['GET', '/api/account/categories/import', 'POST'],
      ['PUT', '/api/account/budgets/copy', 'POST'],
      ['DELETE', '/api/account/budgets/income', 'GET, HEAD, PUT'],
      ['GET', '/api/account/entries/parse', 'POST'],
      ['HEAD', '/api/account/wallets/reorder', 'PUT'],
      ['DELETE', '/api/admin/default-categories/reorder', 'PUT'],
    ] as const) {
      for (const token of [premium.token, undefined]) {
        const refused = await send(app, method, url, { ...(token ? { token } : {}) });
        expect([refused.status, refused.response.headers.allow], `${method} ${url}`).toEqual([405, allow]);
        if (method !== 'HEAD') expect(refused.problem?.code).toBe('METHOD_NOT_ALLOWED');
      }
    }
    // The literal path's own methods are served as before.
    bodyOf(await premium.api.ledger.budgets.getIncome({ query: { year: 2026, month: 5 } }), 200);
  });

  test('QUERY, with or without a Content-Type', async ({ app, premium }) => {
    const headers = { 'content-type': 'application/json' };
    for (const options of [
      {},
      { headers, payload: '{}' },
      { headers: { 'content-type': 'text/plain' }, payload: 'x' },
    ]) {
      const refused = await send(app, 'QUERY', '/api/account/tags', { token: premium.token, ...options });
      expect([refused.status, refused.response.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
      expect(refused.problem?.code).toBe('METHOD_NOT_ALLOWED');
    }
    expect((await send(app, 'QUERY', '/api/no-such-thing')).status).toBe(404);
  });

  test('whatever the body: broken JSON, text, a form', async ({ app }) => {
    for (const [type, payload] of [
      ['application/json', '{'],
      ['text/plain', 'hello'],
      ['application/x-www-form-urlencoded', 'a=1'],
    ]) {
      const refused = await send(app, 'PATCH', '/api/account/tags', { headers: { 'content-type': type! }, payload });
      expect([refused.status, refused.response.headers.allow], type).toEqual([405, 'GET, HEAD, POST']);
    }
  });
});

describe('a body that is not JSON answers 415 (C49)', () => {
  test('text, a form, XML: 415, nothing created', async ({ app, premium }) => {
    for (const [type, payload] of [
      ['text/plain', '{"name":"trip"}'],
      ['application/x-www-form-urlencoded', 'name=trip'],
      ['application/xml', '<tag><name>trip</name></tag>'],
    ]) {
      const refused = await send(app, 'POST', '/api/account/tags', {
        token: premium.token,
        headers: { 'content-type': type! },
        payload,
      });
      expect(refused.status, type).toBe(415);
      expect(refused.problem, type).toMatchObject({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        detail: 'Send the body as application/json.',
      });
    }
    expect(bodyOf(await premium.api.ledger.tags.list(), 200).items).toEqual([]);
  });

  test('an upload says multipart; a path no route has is still 404', async ({ app, free }) => {
    const upload = await send(app, 'POST', '/api/board/images', {
      token: free.token,
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect([upload.status, upload.problem?.detail]).toEqual([415, 'Send the body as multipart/form-data.']);
    const unknown = await send(app, 'POST', '/api/no-such-thing', { headers: { 'content-type': 'text/plain' } });
    expect([unknown.status, unknown.problem?.code]).toEqual([404, 'NOT_FOUND']);
  });
});
