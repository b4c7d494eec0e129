import type { BackupInput } from '@nestegg/contract';
import { describe, expect } from 'vitest';
import { type ApiClient, bodyOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';

/**
 * The feed sends each entry's answer as its change stored it (decision L36): whatever changed the answer since,
 * a later sync must send what the entry routes answer now.
 */

async function fullSync(api: ApiClient) {
  return bodyOf(await api.ledger.changes.list({ query: {} }), 200);
}

/** The member's entries as the entry routes answer them, oldest id first (the feed's order for entries made in turn). */
async function entriesOf(api: ApiClient) {
  const { items } = bodyOf(await api.ledger.entries.list({ query: { size: 100 } }), 200);
  return [...items].sort((a, b) => a.id - b.id);
}

const LUNCH = {
  type: 'EXPENSE',
  amount: 12_000,
  date: '2026-11-20',
  memo: '점심',
  currency: 'USD',
  originalAmount: '9.2500',
  exchangeRate: '1297.3000000000',
} as const;

describe('delta sync: stored entry answers', () => {
  test("follow the entry's tags when they are reordered, renamed, deleted or changed on the entry", async ({
    premium,
  }) => {
    const { ledger } = premium.api;
    const trip = bodyOf(await ledger.tags.create({ body: { name: '여행' } }), 201);
    const work = bodyOf(await ledger.tags.create({ body: { name: '회사' } }), 201);
    const entry = bodyOf(await ledger.entries.create({ body: { ...LUNCH, tags: ['여행', '회사'] } }), 201);
    expect(entry.tags).toEqual(['여행', '회사']);

    // A reorder changes no entry, so it logs none: the next full sync must still show the new order.
    bodyOf(await ledger.tags.reorder({ body: { ids: [work.id, trip.id] } }), 204);
    expect((await fullSync(premium.api)).changed.entries).toEqual(await entriesOf(premium.api));
    expect((await entriesOf(premium.api))[0]!.tags).toEqual(['회사', '여행']);

    bodyOf(await ledger.tags.update({ params: { id: trip.id }, body: { name: '출장' } }), 200);
    expect((await fullSync(premium.api)).changed.entries).toEqual(await entriesOf(premium.api));

    bodyOf(await ledger.entries.update({ params: { id: entry.id }, body: { ...LUNCH, tags: ['출장'] } }), 200);
    expect((await fullSync(premium.api)).changed.entries).toEqual(await entriesOf(premium.api));

    await ledger.tags.delete({ params: { id: trip.id } });
    const entries = await entriesOf(premium.api);
    expect(entries[0]!.tags).toEqual([]);
    expect((await fullSync(premium.api)).changed.entries).toEqual(entries);
  });

  test('of restored entries are what the entry routes answer', async ({ premium, admin }) => {
    const { ledger } = premium.api;
    bodyOf(await ledger.tags.create({ body: { name: '여행' } }), 201);
    bodyOf(await ledger.tags.create({ body: { name: '회사' } }), 201);
    bodyOf(await ledger.entries.create({ body: { ...LUNCH, tags: ['회사', '여행'] } }), 201);
    bodyOf(await ledger.entries.create({ body: { type: 'INCOME', amount: 3_000_000, date: '2026-11-25' } }), 201);
    const backup = bodyOf(await ledger.backup.export(), 200);

    bodyOf(await admin.api.ledger.backup.restore({ body: backup as BackupInput }), 200);
    const restored = await entriesOf(admin.api);
    expect(restored.map(({ tags }) => tags)).toEqual([['여행', '회사'], []]);
    expect((await fullSync(admin.api)).changed.entries).toEqual(restored);
  });
});
