import type { Tag } from '@nestegg/contract';
import { accountEntry, entryTag, ledgerChange, tag } from '@nestegg/db';
import { and, asc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';

const create = async (member: Caller, name: string): Promise<Tag> =>
  bodyOf(await member.api.ledger.tags.create({ body: { name } }), 201);

const rowsOf = (app: FastifyInstance, member: Caller) =>
  app.db.select().from(tag).where(eq(tag.memberId, member.id)).orderBy(asc(tag.id));

/** An entry of `member` carrying `tags` (rows written directly: entries are another module's routes). */
async function taggedEntry(app: FastifyInstance, member: Caller, tags: Tag[]): Promise<number> {
  const [entry] = await app.db
    .insert(accountEntry)
    .values({ memberId: member.id, type: 'EXPENSE', amount: 1000, entryDate: '2025-03-01' })
    .returning({ id: accountEntry.id });
  if (tags.length > 0) {
    await app.db
      .insert(entryTag)
      .values(tags.map((item) => ({ memberId: member.id, entryId: entry!.id, tagId: item.id })));
  }
  return entry!.id;
}

const tagIdsOf = async (app: FastifyInstance, entryId: number) =>
  (await app.db.select({ tagId: entryTag.tagId }).from(entryTag).where(eq(entryTag.entryId, entryId)))
    .map((row) => row.tagId)
    .sort();

describe('tags are premium', () => {
  test('FREE members get 403 PREMIUM_REQUIRED on every route and nothing changes; admins pass', async ({
    app,
    free,
    premium,
    admin,
    anonymous,
  }) => {
    const mine = await create(premium, 'Trip');
    const before = await rowsOf(app, premium);
    const calls = (api: typeof free.api) => [
      api.ledger.tags.list(),
      api.ledger.tags.create({ body: { name: 'Mine' } }),
      api.ledger.tags.reorder({ body: { ids: [mine.id] } }),
      api.ledger.tags.update({ params: { id: mine.id }, body: { name: 'Mine' } }),
      api.ledger.tags.delete({ params: { id: mine.id } }),
    ];
    for (const call of calls(free.api)) problemOf(await call, 403, 'PREMIUM_REQUIRED');
    for (const call of calls(anonymous)) problemOf(await call, 401, 'UNAUTHENTICATED');
    expect(await rowsOf(app, free)).toEqual([]);
    expect(await rowsOf(app, premium)).toEqual(before);
    bodyOf(await admin.api.ledger.tags.create({ body: { name: 'Admin tag' } }), 201);
  });
});

describe('create, list, rename, delete', () => {
  test('a new tag goes last; the list is by sort order and only the caller’s', async ({ app, premium, admin }) => {
    const trip = await create(premium, 'Trip');
    const work = await create(premium, ' Work ');
    expect(trip).toEqual({ id: trip.id, name: 'Trip', sortOrder: 0 });
    expect(work).toMatchObject({ name: 'Work', sortOrder: 1 });
    await app.db.update(tag).set({ sortOrder: 9 }).where(eq(tag.id, trip.id));
    expect((await create(premium, 'Kids')).sortOrder).toBe(10);
    const list = bodyOf(await premium.api.ledger.tags.list(), 200).items;
    expect(list.map((item) => item.name)).toEqual(['Work', 'Trip', 'Kids']);
    expect(bodyOf(await admin.api.ledger.tags.list(), 200).items).toEqual([]);
  });

  test('a name is unique per member: 409 DUPLICATE_NAME on create and rename; others may use it', async ({
    app,
    premium,
    admin,
  }) => {
    const trip = await create(premium, 'Trip');
    await create(premium, 'Work');
    problemOf(await premium.api.ledger.tags.create({ body: { name: 'Trip' } }), 409, 'DUPLICATE_NAME');
    problemOf(
      await premium.api.ledger.tags.update({ params: { id: trip.id }, body: { name: 'Work' } }),
      409,
      'DUPLICATE_NAME',
    );
    await create(admin, 'Trip');
    expect((await rowsOf(app, premium)).map((row) => row.name)).toEqual(['Trip', 'Work']);
  });

  test('parallel creates of one name: one 201, the rest 409; parallel distinct names get distinct orders', async ({
    app,
    premium,
  }) => {
    const same = await Promise.all(
      Array.from({ length: 4 }, () => premium.api.ledger.tags.create({ body: { name: 'Trip' } })),
    );
    expect(same.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409]);
    const distinct = await Promise.all(['A', 'B', 'C', 'D'].map((name) => create(premium, name)));
    expect(distinct.map((item) => item.sortOrder).sort()).toEqual([1, 2, 3, 4]);
    expect(await rowsOf(app, premium)).toHaveLength(5);
  });

  test('renames a tag: its entries follow and are logged as changed for the delta sync', async ({ app, premium }) => {
    const trip = await create(premium, 'Trip');
    const entryId = await taggedEntry(app, premium, [trip]);
    const seqOf = async () =>
      (
        await app.db
          .select({ seq: ledgerChange.seq })
          .from(ledgerChange)
          .where(
            and(
              eq(ledgerChange.memberId, premium.id),
              eq(ledgerChange.entity, 'entry'),
              eq(ledgerChange.entityId, entryId),
            ),
          )
      )[0]?.seq ?? 0;
    const before = await seqOf();
    const renamed = bodyOf(
      await premium.api.ledger.tags.update({ params: { id: trip.id }, body: { name: 'Travel' } }),
      200,
    );
    expect(renamed).toEqual({ ...trip, name: 'Travel' });
    expect(await tagIdsOf(app, entryId)).toEqual([trip.id]);
    expect(await seqOf()).toBeGreaterThan(before);
  });

  test('deleting a tag takes it off its entries; the entries stay', async ({ app, premium }) => {
    const trip = await create(premium, 'Trip');
    const work = await create(premium, 'Work');
    const entryId = await taggedEntry(app, premium, [trip, work]);
    expect((await premium.api.ledger.tags.delete({ params: { id: trip.id } })).status).toBe(204);
    expect(await tagIdsOf(app, entryId)).toEqual([work.id]);
    expect(await app.db.select().from(accountEntry).where(eq(accountEntry.id, entryId))).toHaveLength(1);
    problemOf(await premium.api.ledger.tags.delete({ params: { id: trip.id } }), 404, 'NOT_FOUND');
  });

  test('another member’s tag, or an unknown one, is 404 and stays as it was', async ({ app, premium, admin }) => {
    const theirs = await create(admin, 'Theirs');
    const entryId = await taggedEntry(app, admin, [theirs]);
    const before = await rowsOf(app, admin);
    for (const id of [theirs.id, 2_000_000_000]) {
      problemOf(await premium.api.ledger.tags.update({ params: { id }, body: { name: 'Mine' } }), 404, 'NOT_FOUND');
      problemOf(await premium.api.ledger.tags.delete({ params: { id } }), 404, 'NOT_FOUND');
    }
    expect(await rowsOf(app, admin)).toEqual(before);
    expect(await tagIdsOf(app, entryId)).toEqual([theirs.id]);
  });

  test('validates names with 400', async ({ premium }) => {
    for (const body of [{}, { name: '' }, { name: '  ' }, { name: 'x'.repeat(31) }, { name: 7 }]) {
      problemOf(await premium.api.ledger.tags.create({ body: body as never }), 400, 'VALIDATION_FAILED');
    }
  });
});

describe('reorder', () => {
  test('sets 0..n-1 in the given order', async ({ premium }) => {
    const a = await create(premium, 'A');
    const b = await create(premium, 'B');
    const c = await create(premium, 'C');
    expect((await premium.api.ledger.tags.reorder({ body: { ids: [c.id, a.id, b.id] } })).status).toBe(204);
    const list = bodyOf(await premium.api.ledger.tags.list(), 200).items;
    expect(list.map((item) => [item.name, item.sortOrder])).toEqual([
      ['C', 0],
      ['A', 1],
      ['B', 2],
    ]);
  });

  test('ids that are not exactly all the caller’s tags → 400 INVALID_REORDER, nothing changes', async ({
    app,
    premium,
    admin,
  }) => {
    const a = await create(premium, 'A');
    const b = await create(premium, 'B');
    const theirs = await create(admin, 'Theirs');
    const before = await rowsOf(app, premium);
    const theirsBefore = await rowsOf(app, admin);
    for (const ids of [[b.id, a.id, theirs.id], [b.id, theirs.id], [theirs.id], [b.id], [a.id, b.id, 2_000_000_000]]) {
      problemOf(await premium.api.ledger.tags.reorder({ body: { ids } }), 400, 'INVALID_REORDER');
    }
    for (const body of [{ ids: [] }, { ids: [a.id, a.id] }, {}]) {
      problemOf(await premium.api.ledger.tags.reorder({ body: body as never }), 400, 'VALIDATION_FAILED');
    }
    expect(await rowsOf(app, premium)).toEqual(before);
    expect(await rowsOf(app, admin)).toEqual(theirsBefore);
  });
});
