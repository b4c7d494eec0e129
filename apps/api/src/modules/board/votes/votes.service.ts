import {
  MAX_ID,
  MAX_OFFSET_ROWS,
  type RecommenderPage,
  type RecommenderQuery,
  type ReportTargetType,
  type VoteDirection,
  type VoteResult,
} from '@nestegg/contract';
import { comment, commentVote, type Database, member, post, postVote, type Transaction } from '@nestegg/db';
import { and, desc, eq, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { decodeCursor, encodeCursor } from '../../../lib/cursor.js';
import { BadRequestError, NotFoundError } from '../../../lib/errors.js';
import type { PointsService } from '../../members/points/index.js';
import type { Writer } from '../kernel/index.js';
import { authorColumns, lockReadableTarget, toAuthor } from '../kernel/index.js';
import { type Ballot, settleVotePoints } from './vote-points.js';

/** Where the votes of a kind of target live, and the counters they keep. */
interface VoteTable {
  votes: PgTable;
  targetColumn: SQLWrapper;
  targets: PgTable;
}

const voteTables: Record<ReportTargetType, VoteTable> = {
  POST: { votes: postVote, targetColumn: sql.identifier('post_id'), targets: post },
  COMMENT: { votes: commentVote, targetColumn: sql.identifier('comment_id'), targets: comment },
};

interface Counts {
  upCount: number;
  downCount: number;
}

export interface VotesDeps {
  db: Database;
  points: PointsService;
  /** The api's public address: avatar URLs are absolute. */
  publicUrl: string;
}

/**
 * Votes on posts and comments: one per member per target, toggled (same direction again removes it, the
 * other direction switches it). Each vote runs in one transaction that locks the target row first, so
 * votes on a target are serialised and its counters always equal its vote rows.
 */
export class VotesService {
  private readonly recommenderQueries;

  constructor(private readonly deps: VotesDeps) {
    this.recommenderQueries = prepareRecommenderQueries(deps.db);
  }

  /** Toggles the actor's vote; answers the counts after it and the actor's vote now. */
  vote(actor: Writer, type: ReportTargetType, targetId: number, direction: VoteDirection): Promise<VoteResult> {
    return this.deps.db.transaction(async (tx) => {
      const target = await lockReadableTarget(tx, type, targetId, actor);
      if (target.authorId === actor.memberId) {
        throw new BadRequestError('OWN_CONTENT', 'You cannot vote on your own post or comment.');
      }
      const table = voteTables[type];
      const previous = await findBallot(tx, table, actor.memberId, targetId);
      const next = previous?.direction === direction ? null : direction;
      const authorPoints = await settleVotePoints(this.deps.points, tx, {
        voterId: actor.memberId,
        authorId: target.authorId,
        previous,
        next,
      });
      await writeBallot(tx, table, actor.memberId, targetId, next, authorPoints);
      const counts = await addToCounts(tx, table, targetId, countDelta(previous?.direction, next));
      return { ...counts, myVote: next };
    });
  }

  /**
   * The post's up-voters, newest vote first, by offset or keyset cursor. Two statements in parallel (the
   * post, whose up count is the total, and the page); a post the actor cannot read is 404.
   */
  async recommenders(actor: Writer, postId: number, query: RecommenderQuery): Promise<RecommenderPage> {
    const { size } = query;
    const queries = this.recommenderQueries;
    const after = query.cursor === undefined ? undefined : positionOf(query.cursor);
    if (!after && query.page * size > MAX_OFFSET_ROWS) {
      throw new BadRequestError('OFFSET_TOO_DEEP', `Pages deeper than ${MAX_OFFSET_ROWS} rows are read with cursor.`);
    }
    const page = after
      ? queries.after.execute({ postId, limit: size + 1, ...after })
      : queries.first.execute({ postId, limit: size + 1, offset: (query.page - 1) * size });
    const [[target], rows] = await Promise.all([queries.post.execute({ postId }), page]);
    if (!target || (target.blocked && !actor.isAdmin)) throw new NotFoundError('post');
    const items = rows.slice(0, size);
    const last = items.at(-1);
    return {
      items: items.map((row) => toAuthor(row, this.deps.publicUrl)),
      page: after ? 1 : query.page,
      size,
      total: target.upCount,
      nextCursor: rows.length > size && last ? encodeCursor([last.votedAtMicros, last.id]) : null,
    };
  }
}

async function findBallot(
  tx: Transaction,
  { votes, targetColumn }: VoteTable,
  memberId: number,
  targetId: number,
): Promise<Ballot | undefined> {
  const [row] = await tx.execute<{ direction: VoteDirection; author_points: number }>(
    sql`select direction, author_points from ${votes} where member_id = ${memberId} and ${targetColumn} = ${targetId}`,
  );
  return row ? { direction: row.direction, authorPoints: row.author_points } : undefined;
}

/** Stores the vote (a switch restarts its time, so recommenders list it as new), or removes it. */
async function writeBallot(
  tx: Transaction,
  { votes, targetColumn }: VoteTable,
  memberId: number,
  targetId: number,
  direction: VoteDirection | null,
  authorPoints: number,
): Promise<void> {
  if (direction === null) {
    await tx.execute(sql`delete from ${votes} where member_id = ${memberId} and ${targetColumn} = ${targetId}`);
    return;
  }
  await tx.execute(sql`
    insert into ${votes} (member_id, ${targetColumn}, direction, author_points)
    values (${memberId}, ${targetId}, ${direction}, ${authorPoints})
    on conflict (member_id, ${targetColumn}) do update
      set direction = excluded.direction, author_points = excluded.author_points, created_at = now()`);
}

/** How the counters move from one vote state to the next. */
function countDelta(previous: VoteDirection | undefined, next: VoteDirection | null): Counts {
  const weight = (direction: VoteDirection | null | undefined, of: VoteDirection) => (direction === of ? 1 : 0);
  return {
    upCount: weight(next, 'UP') - weight(previous, 'UP'),
    downCount: weight(next, 'DOWN') - weight(previous, 'DOWN'),
  };
}

async function addToCounts(tx: Transaction, { targets }: VoteTable, targetId: number, delta: Counts): Promise<Counts> {
  const [row] = await tx.execute<{ up_count: number; down_count: number }>(sql`
    update ${targets} set up_count = up_count + ${delta.upCount}, down_count = down_count + ${delta.downCount}
    where id = ${targetId} returning up_count, down_count`);
  return { upCount: row!.up_count, downCount: row!.down_count };
}

/** The keyset position a recommenders cursor continues after; anything else is 400 CURSOR_INVALID. */
function positionOf(cursor: string): { afterMicros: number; afterId: number } {
  const [afterMicros, afterId] = decodeCursor(cursor, ['number', 'number'] as const);
  if (afterMicros < 0 || afterId < 1 || afterId > MAX_ID) {
    throw new BadRequestError('CURSOR_INVALID', 'The cursor is not one this list gave.');
  }
  return { afterMicros, afterId };
}

/** A vote's time as whole microseconds since the epoch: exact in a cursor, where a JS Date would drop digits. */
const votedAtMicros = sql<number>`(extract(epoch from ${postVote.createdAt}) * 1000000)::bigint`.mapWith(Number);
const fromMicros = (micros: SQLWrapper) => sql`timestamptz 'epoch' + (${micros}::bigint * interval '1 microsecond')`;

/** Built once (V5): the post with its up count, and the first and keyset pages of its up-voters. */
function prepareRecommenderQueries(db: Database) {
  const p = sql.placeholder;
  const upVoters = and(eq(postVote.postId, p('postId')), eq(postVote.direction, 'UP'));
  const page = (where: SQL | undefined) =>
    db
      .select({ ...authorColumns, votedAtMicros })
      .from(postVote)
      .innerJoin(member, eq(member.id, postVote.memberId))
      .where(where)
      .orderBy(desc(postVote.createdAt), desc(postVote.memberId))
      .limit(p('limit'));
  const afterPosition = sql`(${postVote.createdAt}, ${postVote.memberId}) < (${fromMicros(p('afterMicros'))}, ${p('afterId')}::integer)`;
  return {
    post: db
      .select({ upCount: post.upCount, blocked: post.blocked })
      .from(post)
      .where(eq(post.id, p('postId')))
      .prepare('recommenders_post'),
    first: page(upVoters).offset(p('offset')).prepare('recommenders_first'),
    after: page(and(upVoters, afterPosition)).prepare('recommenders_after'),
  };
}
