import type { CreateEntryRequest } from '@nestegg/contract';
import { accountEntry } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';

const coffee = {
  type: 'EXPENSE',
  amount: 4_500,
  date: '2024-05-03',
  memo: 'Coffee',
} as const satisfies CreateEntryRequest;

const createWithKey = (caller: Caller, key: string, body: CreateEntryRequest = coffee) =>
  caller.api.ledger.entries.create({ body, headers: { 'idempotency-key': key } });

const entriesOf = (app: FastifyInstance, memberId: number) =>
  app.db.select().from(accountEntry).where(eq(accountEntry.memberId, memberId));

describe('idempotent entry creation (Idempotency-Key)', () => {
  test('a retry with the same key and body answers the first 201 again and records one entry', async ({
    app,
    free,
  }) => {
    const first = await createWithKey(free, 'retry-0001');
    const again = await createWithKey(free, 'retry-0001');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(bodyOf(again, 201)).toEqual(bodyOf(first, 201));
    expect(await entriesOf(app, free.id)).toHaveLength(1);
  });

  test('the same key with another body is 422 IDEMPOTENCY_KEY_REUSED and records nothing more', async ({
    app,
    free,
  }) => {
    bodyOf(await createWithKey(free, 'reused-0001'), 201);
    problemOf(await createWithKey(free, 'reused-0001', { ...coffee, amount: 5_000 }), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await entriesOf(app, free.id)).toHaveLength(1);
  });

  test('concurrent requests with one key record one entry; the others replay it or are told it is in use', async ({
    app,
    free,
  }) => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => createWithKey(free, 'parallel-0001')));
    expect(await entriesOf(app, free.id)).toHaveLength(1);
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const answer of created) expect(answer.body).toEqual(created[0]!.body);
    for (const answer of answers.filter((a) => a.status !== 201)) {
      problemOf(answer, 409, 'IDEMPOTENCY_KEY_IN_USE');
    }
  });

  test('keys are per member: another member’s same key records their own entry', async ({ app, free, other }) => {
    const mine = bodyOf(await createWithKey(free, 'shared-0001'), 201);
    const theirs = bodyOf(await createWithKey(other, 'shared-0001'), 201);
    expect(theirs.id).not.toBe(mine.id);
    expect(await entriesOf(app, free.id)).toHaveLength(1);
    expect(await entriesOf(app, other.id)).toHaveLength(1);
  });

  test('without a key every request records an entry; a refused request with a key replays its refusal', async ({
    app,
    free,
  }) => {
    bodyOf(await free.api.ledger.entries.create({ body: coffee }), 201);
    bodyOf(await free.api.ledger.entries.create({ body: coffee }), 201);
    expect(await entriesOf(app, free.id)).toHaveLength(2);
    problemOf(await createWithKey(free, 'refused-0001', { ...coffee, category: 'Unknown' }), 400, 'UNKNOWN_CATEGORY');
    // A 4xx answer is stored like a success: the same request replays it.
    problemOf(await createWithKey(free, 'refused-0001', { ...coffee, category: 'Unknown' }), 400, 'UNKNOWN_CATEGORY');
    expect(await entriesOf(app, free.id)).toHaveLength(2);
  });
});
