/**
 * Test data for the vote and moderation tests: posts and comments written straight to the tables (the
 * posts module owns their routes), members of a chosen account age, and their clients.
 */
import { comment, member, type NewComment, type NewPost, post } from '@nestegg/db';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { createMemberWithSession } from '../../test/app.js';
import { contractClient } from '../../test/client.js';
import type { Caller } from '../../test/fixtures.js';

export async function insertPost(app: FastifyInstance, authorId: number, values: Partial<NewPost> = {}) {
  const [row] = await app.db
    .insert(post)
    .values({ memberId: authorId, category: 'community', title: 'A post', body: 'Its body', ...values })
    .returning();
  return row!;
}

export async function insertComment(
  app: FastifyInstance,
  authorId: number,
  postId: number,
  values: Partial<NewComment> = {},
) {
  const [row] = await app.db
    .insert(comment)
    .values({ memberId: authorId, postId, body: 'A comment', ...values })
    .returning();
  return row!;
}

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
