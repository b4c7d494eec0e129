import { pointHistory, post } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';
import { callers, clearBoard, insertPost } from '../posts/board.fixture.js';
import { spamSkeleton } from './normalize.js';

const pointsOf = (app: FastifyInstance, memberId: number) =>
  app.db.select().from(pointHistory).where(eq(pointHistory.memberId, memberId));

const addKeyword = async (admin: Caller, keyword: string) =>
  bodyOf(await admin.api.board.addSpamKeyword({ body: { keyword } }), 201);

describe('spam keyword list (admin)', () => {
  test('admins list, add and delete keywords; duplicates are compared normalised', async ({ app, admin }) => {
    await clearBoard(app);
    expect(bodyOf(await admin.api.board.listSpamKeywords(), 200)).toEqual({ items: [] });
    const casino = await addKeyword(admin, ' Casino ');
    expect(casino).toMatchObject({ keyword: 'Casino' });
    await addKeyword(admin, '대출 문의');
    problemOf(
      await admin.api.board.addSpamKeyword({ body: { keyword: 'ＣＡＳＩ\u200bＮＯ' } }),
      409,
      'DUPLICATE_SPAM_KEYWORD',
    );
    problemOf(await admin.api.board.addSpamKeyword({ body: { keyword: '\u200b\u200d' } }), 400, 'VALIDATION_FAILED');
    const listed = bodyOf(await admin.api.board.listSpamKeywords(), 200);
    expect(listed.items.map((item) => item.keyword)).toEqual(['Casino', '대출 문의']);
    expect((await admin.api.board.deleteSpamKeyword({ params: { id: casino.id } })).status).toBe(204);
    problemOf(await admin.api.board.deleteSpamKeyword({ params: { id: casino.id } }), 404, 'NOT_FOUND');
    expect(bodyOf(await admin.api.board.listSpamKeywords(), 200).items).toHaveLength(1);
  });

  test('members and anonymous callers are refused', async ({ free, anonymous }) => {
    problemOf(await free.api.board.listSpamKeywords(), 403, 'ADMIN_REQUIRED');
    problemOf(await free.api.board.addSpamKeyword({ body: { keyword: 'x' } }), 403, 'ADMIN_REQUIRED');
    problemOf(await free.api.board.deleteSpamKeyword({ params: { id: 1 } }), 403, 'ADMIN_REQUIRED');
    problemOf(await anonymous.board.listSpamKeywords(), 401, 'UNAUTHENTICATED');
  });
});

describe('the spam filter', () => {
  test('normalises width, case, invisible characters and whitespace', () => {
    expect(spamSkeleton('ＦＲＥＥ  Ca\u00adsi\u200bno\n\tNOW')).toBe('free casino now');
    // NFKC first (① → 1), then the confusables: the digit 1 reads as l (BD27).
    expect(spamSkeleton('①Ⓑ')).toBe('lb');
  });

  test('a post matching a keyword is stored blocked (SPAM), earns no points, is hidden and reported to admins', async ({
    app,
    free,
    other,
    admin,
  }) => {
    await clearBoard(app);
    await addKeyword(admin, 'casino');
    const spam = bodyOf(
      await free.api.board.createPost({
        body: { category: 'community', title: 'Win big', body: 'Best ＣＡＳＩ\u200bＮＯ!' },
      }),
      201,
    );
    expect(spam).toMatchObject({ blocked: true, blockReason: null });
    expect(await pointsOf(app, free.id)).toEqual([]);
    problemOf(await other.api.board.getPost({ params: { id: spam.id } }), 404, 'NOT_FOUND');
    expect(bodyOf(await other.api.board.listPosts({ query: {} }), 200).items).toEqual([]);
    expect(bodyOf(await admin.api.board.getPost({ params: { id: spam.id } }), 200)).toMatchObject({
      blocked: true,
      blockReason: 'SPAM',
    });
    const reports = bodyOf(await admin.api.board.listReports({ query: {} }), 200);
    expect(reports.items).toContainEqual(
      expect.objectContaining({ targetType: 'POST', targetId: spam.id, blocked: true, blockReason: 'SPAM' }),
    );
    // Clean writing still earns points.
    bodyOf(await free.api.board.createPost({ body: { category: 'community', title: 'Hello', body: 'Hi' } }), 201);
    expect(await pointsOf(app, free.id)).toHaveLength(1);
  });

  test('a comment matching a keyword is stored blocked, body hidden, no points', async ({
    app,
    free,
    other,
    admin,
  }) => {
    await clearBoard(app);
    await addKeyword(admin, '대출 문의');
    const target = await insertPost(app, other.id);
    const spam = bodyOf(
      await free.api.board.createComment({ params: { id: target.id }, body: { body: '급전 대출   문의 010-0000' } }),
      201,
    );
    expect(spam).toMatchObject({ blocked: true, body: null });
    expect(await pointsOf(app, free.id)).toEqual([]);
    const seenByAdmin = bodyOf(await admin.api.board.listComments({ params: { id: target.id }, query: {} }), 200);
    expect(seenByAdmin.items[0]).toMatchObject({ blocked: true, body: '급전 대출   문의 010-0000' });
    const reports = bodyOf(await admin.api.board.listReports({ query: {} }), 200);
    expect(reports.items).toContainEqual(
      expect.objectContaining({ targetType: 'COMMENT', targetId: spam.id, blockReason: 'SPAM' }),
    );
  });

  test('an edit that adds a keyword blocks the post; admins are not filtered', async ({ app, free, admin }) => {
    await clearBoard(app);
    await addKeyword(admin, 'casino');
    const clean = bodyOf(
      await free.api.board.createPost({ body: { category: 'tips', title: 'Tip', body: 'Save' } }),
      201,
    );
    const edited = bodyOf(
      await free.api.board.updatePost({ params: { id: clean.id }, body: { body: 'Visit my casino' } }),
      200,
    );
    expect(edited.blocked).toBe(true);
    const [stored] = await app.db.select().from(post).where(eq(post.id, clean.id));
    expect(stored).toMatchObject({ blocked: true, blockReason: 'SPAM' });
    const warning = bodyOf(
      await admin.api.board.createPost({ body: { category: 'community', title: 'Casino spam', body: 'Report it' } }),
      201,
    );
    expect(warning.blocked).toBe(false);
  });
});

describe('dodges the filter sees through (decision BD27)', () => {
  test('spaced, dotted and look-alike spellings of a keyword are blocked; ordinary Korean is not', async ({
    app,
    free,
    admin,
  }) => {
    await clearBoard(app);
    await addKeyword(admin, 'casino');
    await addKeyword(admin, '대출');
    await addKeyword(admin, '사기');
    // Posts are limited to 4 a minute per member (BD21): each post has its own writer.
    const writers = [free, ...(await callers(app, 7))];
    const write = async (body: string) =>
      bodyOf(await writers.pop()!.api.board.createPost({ body: { category: 'community', title: 'Hi', body } }), 201)
        .blocked;
    expect(await write('Best c a s i n o in town')).toBe(true);
    expect(await write('c.a.s.i.n.o, today only')).toBe(true);
    expect(await write('Visit our с\u0430sin\u043e')).toBe(true); // Cyrillic с, а, о
    expect(await write('ΚΑΖΙΝΟ? no: CΑSΙΝΟ')).toBe(true); // Greek capitals
    expect(await write('급전 대 출 가능')).toBe(true);
    // Korean words that only meet across a space are not a keyword.
    expect(await write('주식 사 기회를 잡으세요. 오늘 대 출시 예정입니다.')).toBe(false);
    expect(await write('그 사람은 사, 기회가 없었다고 말했다.')).toBe(false);
  });

  test('a keyword that only differs by look-alike letters or separators is a duplicate', async ({ app, admin }) => {
    await clearBoard(app);
    await addKeyword(admin, 'casino');
    problemOf(
      await admin.api.board.addSpamKeyword({ body: { keyword: 'c\u0430sin\u043e' } }),
      409,
      'DUPLICATE_SPAM_KEYWORD',
    );
    problemOf(
      await admin.api.board.addSpamKeyword({ body: { keyword: 'c.a.s.i.n.o' } }),
      409,
      'DUPLICATE_SPAM_KEYWORD',
    );
    // Symbols are separators now: a keyword that keeps one letter only would block nearly everything.
    problemOf(await admin.api.board.addSpamKeyword({ body: { keyword: 'c++' } }), 400, 'VALIDATION_FAILED');
    problemOf(await admin.api.board.addSpamKeyword({ body: { keyword: '$$$' } }), 400, 'VALIDATION_FAILED');
    expect(await addKeyword(admin, '賭')).toMatchObject({ keyword: '賭' });
  });
});
