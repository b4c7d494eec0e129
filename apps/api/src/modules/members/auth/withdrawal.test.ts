import {
  account,
  accountEntry,
  boardImage,
  budget,
  budgetIncome,
  budgetOnetime,
  cardCancellation,
  category,
  comment,
  commentVote,
  entryTag,
  iapPurchase,
  idempotencyKey,
  investmentHolding,
  investmentTrade,
  pointHistory,
  post,
  postVote,
  quickEntry,
  recurring,
  report,
  statementImport,
  statementImportProfile,
  statementImportRow,
  tag,
  walletLoanHistory,
  walletValueHistory,
} from '@nestegg/db';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { signUpAndLogIn } from '../../../test/auth-helpers.js';
import { contractClient } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import { hashToken, sessionCacheKeys } from './session.store.js';

/** Gives the member a row in every table that can hold their data, and touches someone else's content. */
async function seedEverything(app: FastifyInstance, memberId: number, otherId: number) {
  const { db } = app;
  const [wallet] = await db.insert(account).values({ memberId, name: 'Card', type: 'CARD' }).returning();
  const [food] = await db.insert(category).values({ memberId, name: 'Food', type: 'EXPENSE' }).returning();
  await db.insert(category).values({ memberId, name: 'Lunch', type: 'EXPENSE', parentId: food!.id });
  const [entry] = await db
    .insert(accountEntry)
    .values({
      memberId,
      accountId: wallet!.id,
      type: 'EXPENSE',
      amount: 12000,
      entryDate: '2026-11-01',
      category: 'Lunch',
      // A confirmed entry with memo and category is learned (merchant_category, by trigger).
      memo: 'Noodle bar',
    })
    .returning();
  const [label] = await db.insert(tag).values({ memberId, name: 'work' }).returning();
  await db.insert(entryTag).values({ memberId, entryId: entry!.id, tagId: label!.id });
  await db.insert(budget).values({ memberId, category: 'Food', year: 2026, month: 11, amount: 300000 });
  await db.insert(budgetIncome).values({ memberId, year: 2026, month: 11, amount: 3000000 });
  await db
    .insert(budgetOnetime)
    .values({ memberId, name: 'Trip', amount: 500000, startDate: '2026-11-01', endDate: '2026-11-30' });
  await db
    .insert(recurring)
    .values({ memberId, name: 'Rent', type: 'EXPENSE', amount: 700000, startDate: '2026-01-01' });
  await db.insert(quickEntry).values({ memberId, name: 'Coffee', type: 'EXPENSE', amount: 4500 });
  await db.insert(cardCancellation).values({ memberId, notifKey: 'v1:C:seeded:2026-11-01T00:00' });
  const [statement] = await db
    .insert(statementImport)
    .values({
      memberId,
      fileName: 'card.csv',
      fileHash: 'h',
      fileSize: 1,
      reading: {},
      settings: {},
      counts: {},
      rowCount: 1,
    })
    .returning();
  await db
    .insert(statementImportRow)
    .values({ memberId, importId: statement!.id, rowIndex: 0, line: {}, outcome: 'NEW' });
  await db.insert(statementImportProfile).values({ memberId, name: 'Card', shapeKey: 'shape', settings: {} });
  await db.insert(walletValueHistory).values({ memberId, accountId: wallet!.id, day: '2026-11-01', value: 1000 });
  await db.insert(walletLoanHistory).values({
    memberId,
    accountId: wallet!.id,
    validFrom: '2026-11-01',
    loanAmount: 1_000_000,
    loanMethod: 'EQUAL_PAYMENT',
    loanMonths: 12,
    loanStart: '2026-11-01',
  });
  await db
    .insert(idempotencyKey)
    .values({ memberId, route: 'POST /api/account/entries', key: 'k-1', requestHash: 'h' });
  const [holding] = await db.insert(investmentHolding).values({ memberId, name: 'Index fund' }).returning();
  await db
    .insert(investmentTrade)
    .values({ memberId, holdingId: holding!.id, side: 'BUY', quantity: '1.5', price: '10000', tradedAt: '2026-11-02' });

  const [ownPost] = await db
    .insert(post)
    .values({ memberId, category: 'community', title: 'Mine', body: 'My post', reportCount: 1 })
    .returning();
  const [otherPost] = await db
    .insert(post)
    .values({ memberId: otherId, category: 'tips', title: 'Theirs', body: 'Their post', upCount: 1, reportCount: 1 })
    .returning();
  const [ownComment] = await db
    .insert(comment)
    .values({ memberId, postId: otherPost!.id, body: 'Nice', reportCount: 1 })
    .returning();
  const [otherComment] = await db
    .insert(comment)
    .values({ memberId: otherId, postId: ownPost!.id, body: 'Reply on the member post', downCount: 1 })
    .returning();
  const [otherCommentOnOtherPost] = await db
    .insert(comment)
    .values({ memberId: otherId, postId: otherPost!.id, body: 'Stays', upCount: 1 })
    .returning();
  await db.insert(postVote).values({ memberId, postId: otherPost!.id, direction: 'UP' });
  await db.insert(commentVote).values({ memberId, commentId: otherCommentOnOtherPost!.id, direction: 'UP' });
  await db.insert(report).values([
    { memberId, targetType: 'POST', targetId: otherPost!.id, reason: 'spam' },
    { memberId: otherId, targetType: 'POST', targetId: ownPost!.id, reason: 'rude' },
    { memberId: otherId, targetType: 'COMMENT', targetId: ownComment!.id, reason: 'rude' },
  ]);
  const [image] = await db
    .insert(boardImage)
    .values({ memberId, contentType: 'image/png', bytes: Buffer.from([1, 2, 3]), byteSize: 3 })
    .returning({ id: boardImage.id });
  // Bodies showing the image: the triggers link them (post_image, comment_image).
  await db
    .update(post)
    .set({ body: `My post /api/images/${image!.id}` })
    .where(eq(post.id, ownPost!.id));
  await db
    .update(comment)
    .set({ body: `Nice /api/images/${image!.id}` })
    .where(eq(comment.id, ownComment!.id));
  await db.insert(pointHistory).values({ memberId, amount: 10, reason: 'POST_WRITTEN' });
  await db.insert(iapPurchase).values({ memberId, productId: 'premium_monthly', purchaseToken: `token-${memberId}` });
  return {
    otherPost: otherPost!,
    otherComment: otherComment!,
    otherCommentOnOtherPost: otherCommentOnOtherPost!,
    ownPost: ownPost!,
  };
}

/** Rows of the member in every table with a member_id column, plus entry tags and the member row. */
async function rowsOf(app: FastifyInstance, memberId: number): Promise<Record<string, number>> {
  const tables = await app.db.execute<{ table_name: string }>(sql`
    select table_name from information_schema.columns
    where table_schema = 'public' and column_name = 'member_id' order by table_name`);
  const counts: Record<string, number> = {};
  for (const { table_name } of tables) {
    const [row] = await app.db.execute<{ count: number }>(
      sql`select count(*)::int as count from ${sql.identifier(table_name)} where member_id = ${memberId}`,
    );
    counts[table_name] = row!.count;
  }
  const [tags] = await app.db.execute<{ count: number }>(
    sql`select count(*)::int as count from entry_tag join account_entry on account_entry.id = entry_tag.entry_id where account_entry.member_id = ${memberId}`,
  );
  const [self] = await app.db.execute<{ count: number }>(
    sql`select count(*)::int as count from member where id = ${memberId}`,
  );
  return { ...counts, entry_tag: tags!.count, member: self!.count };
}

const test = apiTest();

describe('withdrawal (DELETE /api/auth/me)', () => {
  test('leaves nothing of the member in any table, and keeps everyone else whole', async ({ app }) => {
    const leaving = await signUpAndLogIn(app);
    const staying = await signUpAndLogIn(app);
    const leavingApi = contractClient(app, { token: leaving.token });
    const seeded = await seedEverything(app, leaving.member.id, staying.member.id);

    const before = await rowsOf(app, leaving.member.id);
    const emptyBefore = Object.entries(before)
      .filter(([, count]) => count === 0)
      .map(([table]) => table);
    expect(emptyBefore, 'the seed must cover every table').toEqual([]);

    const gate = await leavingApi.auth.verifyPassword({ body: { password: leaving.password } });
    expect(gate.status).toBe(200);
    const response = await leavingApi.auth.deleteMe();
    expect(response.status).toBe(204);

    const after = await rowsOf(app, leaving.member.id);
    expect(
      Object.values(after).every((count) => count === 0),
      JSON.stringify(after),
    ).toBe(true);
    expect(await app.redis!.exists(sessionCacheKeys(hashToken(leaving.token)).session)).toBe(0);
    expect((await leavingApi.auth.getProfile()).status).toBe(401);

    // Their vote and report on someone else's post are withdrawn, and the counters follow.
    const [otherPost] = await app.db.select().from(post).where(eq(post.id, seeded.otherPost.id));
    expect(otherPost).toMatchObject({ upCount: 0, reportCount: 0 });
    const [survivor] = await app.db.select().from(comment).where(eq(comment.id, seeded.otherCommentOnOtherPost.id));
    expect(survivor).toMatchObject({ upCount: 0 });
    // Comments others left on the member's post go with the post; reports on the member's content are gone.
    expect(await app.db.select().from(comment).where(eq(comment.id, seeded.otherComment.id))).toHaveLength(0);
    expect(await app.db.select().from(report)).toHaveLength(0);
    expect((await contractClient(app, { token: staying.token }).auth.getProfile()).status).toBe(200);
  });
});
