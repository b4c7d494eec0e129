/**
 * Ownership matrix resources of the vote and report routes. Voting on, reporting and listing the
 * recommenders of another member's *visible* post is what those routes are for (the caller acts in their
 * own name; votes.test.ts shows it leaves everyone else's votes alone), so the matrix's "another member
 * gets 404 and nothing changes" is checked on content others cannot read: a blocked post, and a blocked
 * comment. The posts and comments module registers the visible ones for its own routes.
 */
import { comment, commentVote, moderationEvent, post, postVote, report } from '@nestegg/db';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { registerOwnedResource } from '../../../test/ownership/registry.js';
import { insertComment, insertPost } from '../posts/board.fixture.js';

const reportsAndEventsOf = async (app: FastifyInstance, targetType: 'POST' | 'COMMENT', targetId: number) => ({
  reports: await app.db
    .select()
    .from(report)
    .where(and(eq(report.targetType, targetType), eq(report.targetId, targetId))),
  events: await app.db
    .select()
    .from(moderationEvent)
    .where(and(eq(moderationEvent.targetType, targetType), eq(moderationEvent.targetId, targetId))),
});

registerOwnedResource({
  name: 'blocked board post',
  routes: ['board.votePost', 'board.reportPost', 'board.listRecommenders'],
  hiddenFromOwner: true,
  async make(app, owner) {
    return (await insertPost(app, owner.id, { blocked: true, blockReason: 'REPORTS' })).id;
  },
  snapshot: async (app, id) => ({
    post: await app.db
      .select()
      .from(post)
      .where(eq(post.id, Number(id))),
    votes: await app.db
      .select()
      .from(postVote)
      .where(eq(postVote.postId, Number(id))),
    ...(await reportsAndEventsOf(app, 'POST', Number(id))),
  }),
});

registerOwnedResource({
  name: 'blocked board comment',
  routes: ['board.voteComment', 'board.reportComment'],
  hiddenFromOwner: true,
  async make(app, owner) {
    const parent = await insertPost(app, owner.id);
    return (await insertComment(app, owner.id, parent.id, { blocked: true, blockReason: 'REPORTS' })).id;
  },
  snapshot: async (app, id) => ({
    comment: await app.db
      .select()
      .from(comment)
      .where(eq(comment.id, Number(id))),
    votes: await app.db
      .select()
      .from(commentVote)
      .where(eq(commentVote.commentId, Number(id))),
    ...(await reportsAndEventsOf(app, 'COMMENT', Number(id))),
  }),
});
