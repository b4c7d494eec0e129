/**
 * Test data for the board's tests (posts, comments, votes, moderation): rows written straight to the tables
 * (for lists that need many posts or set times and votes; the posts module owns their routes), tag groups,
 * a small real picture, and members of a chosen account age with their clients.
 */
import {
  type BoardCategory,
  boardPostCount,
  boardTag,
  comment,
  member,
  type NewComment,
  type NewPost,
  post,
  spamKeyword,
  tagCategory,
} from '@nestegg/db';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { createMemberWithSession } from '../../../test/app.js';
import { contractClient } from '../../../test/client.js';
import type { Caller } from '../../../test/fixtures.js';

/**
 * The board is shared by every member: tests of lists, tags and spam start from an empty board (a file's
 * tests run one after another on the file's own database).
 */
export async function clearBoard(app: FastifyInstance): Promise<void> {
  await app.db.delete(post);
  await app.db.delete(tagCategory);
  await app.db.delete(spamKeyword);
  await app.db.delete(boardPostCount);
}

export async function insertPosts(app: FastifyInstance, authorId: number, rows: Partial<NewPost>[]) {
  return app.db
    .insert(post)
    .values(
      rows.map((values) => ({
        memberId: authorId,
        category: 'community' as const,
        title: 'Post',
        body: 'Body',
        ...values,
      })),
    )
    .returning();
}

export async function insertPost(app: FastifyInstance, authorId: number, values: Partial<NewPost> = {}) {
  const [row] = await insertPosts(app, authorId, [values]);
  return row!;
}

export async function insertComments(
  app: FastifyInstance,
  authorId: number,
  postId: number,
  rows: Partial<NewComment>[],
) {
  return app.db
    .insert(comment)
    .values(rows.map((values) => ({ memberId: authorId, postId, body: 'Comment', ...values })))
    .returning();
}

export async function insertComment(
  app: FastifyInstance,
  authorId: number,
  postId: number,
  values: Partial<NewComment> = {},
) {
  const [row] = await insertComments(app, authorId, postId, [values]);
  return row!;
}

/** A tag group shown on `boards` (none: every board) holding `tags`. */
export async function addTagGroup(app: FastifyInstance, name: string, boards: BoardCategory[], tags: string[]) {
  const [group] = await app.db.insert(tagCategory).values({ name, boards }).returning();
  if (tags.length > 0) {
    await app.db.insert(boardTag).values(tags.map((tag) => ({ tagCategoryId: group!.id, name: tag })));
  }
  return group!;
}

/** A tiny PNG as the profile picture data URL the auth area takes. */
export async function pictureDataUrl(color = '#33aa77'): Promise<string> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: color } })
    .png()
    .toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

/** A time `hours` ago (hot posts are created within a day). */
export const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

/** Moves the member's sign-up back by `days`. */
export async function ageAccount(app: FastifyInstance, memberId: number, days: number): Promise<void> {
  await app.db
    .update(member)
    .set({ createdAt: sql`now() - make_interval(days => ${days})` })
    .where(eq(member.id, memberId));
}

/** `count` new FREE members with sessions and clients, their accounts `ageDays` old (default 30). */
export async function callers(
  app: FastifyInstance,
  count: number,
  options: { ageDays?: number } = {},
): Promise<Caller[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const created = await createMemberWithSession(app);
      await ageAccount(app, created.id, options.ageDays ?? 30);
      return { ...created, api: contractClient(app, { token: created.token }) };
    }),
  );
}

export async function pointsOf(app: FastifyInstance, memberId: number): Promise<number> {
  const [row] = await app.db.select({ points: member.points }).from(member).where(eq(member.id, memberId));
  return row!.points;
}

export async function setPoints(app: FastifyInstance, memberId: number, points: number): Promise<void> {
  await app.db.update(member).set({ points }).where(eq(member.id, memberId));
}
