import { SORT_ORDER_MAX } from '@nestegg/contract';
import { category, defaultCategory } from '@nestegg/db';
import { and, eq, inArray } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';

// Issue 17 item 8: a row at the highest sort position made every later create overflow the column (400).
describe('a row at the highest sort position never blocks a create', () => {
  test('quick entries: the next ones share the top place and list after it', async ({ free }) => {
    const last = bodyOf(
      await free.api.ledger.quickEntries.create({ body: { name: 'last', type: 'EXPENSE', sortOrder: SORT_ORDER_MAX } }),
      201,
    );
    const next = bodyOf(await free.api.ledger.quickEntries.create({ body: { name: 'next' } }), 201);
    const after = bodyOf(await free.api.ledger.quickEntries.create({ body: { name: 'after' } }), 201);
    expect([next.sortOrder, after.sortOrder]).toEqual([SORT_ORDER_MAX, SORT_ORDER_MAX]);
    const { items } = bodyOf(await free.api.ledger.quickEntries.list(), 200);
    expect(items.map((item) => item.id)).toEqual([last.id, next.id, after.id]);
  });

  test('wallets, tags and categories restored at the top: each create still succeeds, last', async ({ premium }) => {
    const restored = await premium.api.ledger.backup.restore({
      body: {
        accounts: [{ name: 'top', type: 'CASH', sortOrder: SORT_ORDER_MAX }],
        tags: [{ name: 'top', sortOrder: SORT_ORDER_MAX }],
        categories: [
          { name: 'Top', type: 'EXPENSE', sortOrder: SORT_ORDER_MAX },
          { name: 'Sub', type: 'EXPENSE', parent: 'Top', sortOrder: SORT_ORDER_MAX },
        ],
        quickEntries: [{ name: 'top', sortOrder: SORT_ORDER_MAX }],
      },
    });
    bodyOf(restored, 200);
    for (const name of ['w1', 'w2']) {
      expect(bodyOf(await premium.api.ledger.wallets.create({ body: { name, type: 'BANK' } }), 201).sortOrder).toBe(
        SORT_ORDER_MAX,
      );
    }
    expect(bodyOf(await premium.api.ledger.wallets.list(), 200).items.map((w) => w.name)).toEqual(['top', 'w1', 'w2']);
    for (const name of ['t1', 't2']) {
      expect(bodyOf(await premium.api.ledger.tags.create({ body: { name } }), 201).sortOrder).toBe(SORT_ORDER_MAX);
    }
    expect(bodyOf(await premium.api.ledger.tags.list(), 200).items.map((t) => t.name)).toEqual(['top', 't1', 't2']);
    const top = bodyOf(await premium.api.ledger.categories.create({ body: { name: 'Other', type: 'EXPENSE' } }), 201);
    expect(top.sortOrder).toBe(SORT_ORDER_MAX);
    const topId = bodyOf(await premium.api.ledger.categories.list({ query: { type: 'EXPENSE' } }), 200).items.find(
      (c) => c.name === 'Top',
    )!.id;
    const sub = bodyOf(
      await premium.api.ledger.categories.create({ body: { name: 'Sub2', type: 'EXPENSE', parentId: topId } }),
      201,
    );
    expect(sub.sortOrder).toBe(SORT_ORDER_MAX);
    expect(bodyOf(await premium.api.ledger.quickEntries.create({ body: { name: 'q' } }), 201).sortOrder).toBe(
      SORT_ORDER_MAX,
    );
  });

  test('the category import places its copies at most at the top position', async ({ app, admin, premium }) => {
    bodyOf(await admin.api.admin.createDefaultCategory({ body: { name: 'Imported parent', type: 'EXPENSE' } }), 201);
    bodyOf(await premium.api.ledger.categories.create({ body: { name: 'Mine', type: 'EXPENSE' } }), 201);
    await app.db
      .update(category)
      .set({ sortOrder: SORT_ORDER_MAX })
      .where(and(eq(category.memberId, premium.id), eq(category.name, 'Mine')));
    expect(bodyOf(await premium.api.ledger.categories.import(), 200).imported).toBeGreaterThan(0);
    const rows = await app.db
      .select({ sortOrder: category.sortOrder })
      .from(category)
      .where(and(eq(category.memberId, premium.id), inArray(category.name, ['Imported parent'])));
    expect(rows).toEqual([{ sortOrder: SORT_ORDER_MAX }]);
  });

  test('admin default categories and board tag groups and tags at the top', async ({ app, admin }) => {
    const first = bodyOf(
      await admin.api.admin.createDefaultCategory({ body: { name: 'Ceiling', type: 'INCOME' } }),
      201,
    );
    await app.db.update(defaultCategory).set({ sortOrder: SORT_ORDER_MAX }).where(eq(defaultCategory.id, first.id));
    const next = bodyOf(await admin.api.admin.createDefaultCategory({ body: { name: 'Above', type: 'INCOME' } }), 201);
    expect(next.sortOrder).toBe(SORT_ORDER_MAX);

    const group = bodyOf(await admin.api.board.createTagGroup({ body: { name: 'Ceiling group' } }), 201);
    const tag = bodyOf(await admin.api.board.createBoardTag({ params: { id: group.id }, body: { name: 'a' } }), 201);
    await app.db.execute(`update tag_category set sort_order = ${SORT_ORDER_MAX} where id = ${group.id}`);
    await app.db.execute(`update board_tag set sort_order = ${SORT_ORDER_MAX} where id = ${tag.id}`);
    bodyOf(await admin.api.board.createTagGroup({ body: { name: 'Next group' } }), 201);
    bodyOf(await admin.api.board.createBoardTag({ params: { id: group.id }, body: { name: 'b' } }), 201);
  });
});
