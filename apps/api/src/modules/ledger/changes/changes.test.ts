import { budget, budgetIncome, memberChangeCounter } from '@nestegg/db';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { encodeCursor } from '../../../lib/cursor.js';
import { type ApiClient, bodyOf, problemOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';

async function sync(api: ApiClient, since?: string, limit?: number) {
  return bodyOf(await api.ledger.changes.list({ query: { since, limit } }), 200);
}

async function addBudget(app: FastifyInstance, memberId: number, category: string, amount = 100_000) {
  const [row] = await app.db
    .insert(budget)
    .values({ memberId, category, year: 2026, month: 11, amount })
    .returning({ id: budget.id });
  return row!.id;
}

/** Starts a transaction that writes a budget and waits, holding the member's change counter, until released. */
function heldWrite(app: FastifyInstance, memberId: number, category: string) {
  let release!: () => void;
  let written!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const hasWritten = new Promise<void>((resolve) => {
    written = resolve;
  });
  const done = app.db.transaction(async (tx) => {
    await tx.insert(budget).values({ memberId, category, year: 2026, month: 11, amount: 1 });
    written();
    await released;
  });
  return { hasWritten, release, done };
}

describe('delta sync', () => {
  test('a first sync of an empty ledger has nothing and a cursor that later syncs continue from', async ({
    app,
    premium,
  }) => {
    const first = await sync(premium.api);
    expect(first.hasMore).toBe(false);
    expect(first.deleted).toEqual([]);
    expect(Object.values(first.changed).every((records) => records.length === 0)).toBe(true);

    const id = await addBudget(app, premium.id, '식비');
    const next = await sync(premium.api, first.cursor);
    expect(next.changed.budgets).toEqual([{ id, category: '식비', year: 2026, month: 11, amount: 100_000 }]);
    expect((await sync(premium.api, next.cursor)).changed.budgets).toEqual([]);
  });

  test('a record changed several times comes once with its latest state; a deletion comes as a tombstone', async ({
    app,
    premium,
  }) => {
    const start = (await sync(premium.api)).cursor;
    const id = await addBudget(app, premium.id, '교통');
    await app.db.update(budget).set({ amount: 7 }).where(eq(budget.id, id));
    await app.db.update(budget).set({ amount: 8 }).where(eq(budget.id, id));
    const changed = await sync(premium.api, start);
    expect(changed.changed.budgets).toEqual([{ id, category: '교통', year: 2026, month: 11, amount: 8 }]);

    await app.db.delete(budget).where(eq(budget.id, id));
    const afterDelete = await sync(premium.api, changed.cursor);
    expect(afterDelete.changed.budgets).toEqual([]);
    expect(afterDelete.deleted).toEqual([{ entity: 'budget', id }]);
    // Changed then deleted since the first cursor: only the deletion.
    const fromStart = await sync(premium.api, start);
    expect(fromStart.changed.budgets).toEqual([]);
    expect(fromStart.deleted).toEqual([{ entity: 'budget', id }]);
    // A first sync has nothing to delete.
    expect((await sync(premium.api)).deleted).toEqual([]);
  });

  test('pages by `limit` in commit order until `hasMore` is false, each change exactly once', async ({
    app,
    premium,
  }) => {
    const start = (await sync(premium.api)).cursor;
    const ids: number[] = [];
    for (let index = 0; index < 7; index += 1) ids.push(await addBudget(app, premium.id, `c${index}`));
    await app.db.insert(budgetIncome).values({ memberId: premium.id, year: 2026, month: 11, amount: 3_000_000 });

    const seen: string[] = [];
    let cursor = start;
    for (let round = 0; round < 10; round += 1) {
      const page = await sync(premium.api, cursor, 3);
      seen.push(...page.changed.budgets.map((row) => `budget:${row.id}`));
      seen.push(...page.changed.budgetIncomes.map((row) => `income:${row.amount}`));
      cursor = page.cursor;
      if (!page.hasMore) break;
    }
    expect(seen).toEqual([...ids.map((id) => `budget:${id}`), 'income:3000000']);
    expect((await sync(premium.api, cursor)).changed.budgets).toEqual([]);
  });

  test("never carries another member's changes", async ({ app, premium, other }) => {
    const start = (await sync(other.api)).cursor;
    await addBudget(app, premium.id, '식비');
    const theirs = await sync(other.api, start);
    expect(theirs.changed.budgets).toEqual([]);
    expect((await sync(other.api)).changed.budgets).toEqual([]);
  });

  test('a change committed after a sync but numbered before its cursor is never missed', async ({ app, premium }) => {
    const start = (await sync(premium.api)).cursor;
    const first = heldWrite(app, premium.id, 'held');
    await first.hasWritten;
    // The held transaction owns the next number; this write waits for it, so numbers follow commit order.
    const second = addBudget(app, premium.id, 'after');
    const during = await sync(premium.api, start);
    expect(during.changed.budgets).toEqual([]);

    first.release();
    await first.done;
    await second;
    const after = await sync(premium.api, during.cursor);
    expect(after.changed.budgets.map((row) => row.category)).toEqual(['held', 'after']);
  });

  test('answers 409 RESYNC_REQUIRED for a cursor below the pruned tombstones or beyond the ledger', async ({
    app,
    premium,
  }) => {
    await addBudget(app, premium.id, '식비');
    const { cursor } = await sync(premium.api);
    await addBudget(app, premium.id, '교통');
    await app.db
      .update(memberChangeCounter)
      .set({ prunedSeq: 2 })
      .where(and(eq(memberChangeCounter.memberId, premium.id)));
    problemOf(await premium.api.ledger.changes.list({ query: { since: cursor } }), 409, 'RESYNC_REQUIRED');
    problemOf(
      await premium.api.ledger.changes.list({ query: { since: encodeCursor([1_000_000]) } }),
      409,
      'RESYNC_REQUIRED',
    );
    // Starting over works.
    expect((await sync(premium.api)).changed.budgets).toHaveLength(2);
  });

  test('refuses a cursor it did not give with 400 CURSOR_INVALID', async ({ premium }) => {
    for (const since of ['abc', encodeCursor(['x']), encodeCursor([1, 2])]) {
      problemOf(await premium.api.ledger.changes.list({ query: { since } }), 400, 'CURSOR_INVALID');
    }
  });
});
