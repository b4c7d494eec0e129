import { type DbOrTx, member, pointHistory } from '@nestegg/db';
import { and, desc, eq, gt, gte, inArray, sql } from 'drizzle-orm';

/** Reasons of the point rules (spec, Limits). `MONTH_COMPLETE_<yyyyMM>` is built by `monthCompleteReason`. */
export const PointReason = {
  POST_WRITTEN: 'POST_WRITTEN',
  COMMENT_WRITTEN: 'COMMENT_WRITTEN',
  UP_VOTE_RECEIVED: 'UP_VOTE_RECEIVED',
  DOWN_VOTE_RECEIVED: 'DOWN_VOTE_RECEIVED',
  UP_VOTE_GIVEN: 'UP_VOTE_GIVEN',
  UP_VOTE_CANCELLED: 'UP_VOTE_CANCELLED',
} as const;

export const monthCompleteReason = (year: number, month: number) =>
  `MONTH_COMPLETE_${year}${String(month).padStart(2, '0')}`;

/** A daily cap shared by a group of reasons: positive points of those reasons earned today, at most `max`. */
export interface DailyCap {
  max: number;
  reasons: readonly string[];
}

export const DailyCaps = {
  WRITING: { max: 50, reasons: [PointReason.POST_WRITTEN, PointReason.COMMENT_WRITTEN] },
  UP_VOTES_RECEIVED: { max: 50, reasons: [PointReason.UP_VOTE_RECEIVED] },
  UP_VOTES_GIVEN: { max: 10, reasons: [PointReason.UP_VOTE_GIVEN] },
} satisfies Record<string, DailyCap>;

export interface PointChange {
  memberId: number;
  /** Signed; a loss is floored so the balance never goes below 0. */
  amount: number;
  reason: string;
  dailyCap?: DailyCap;
}

/**
 * Points of every member, shared by the board and ledger modules. Runs inside the caller's transaction
 * and locks the member's row first, so concurrent awards are serialised and caps cannot be exceeded.
 */
export class PointsService {
  private readonly timeZone: string;

  constructor(deps: { timeZone: string }) {
    this.timeZone = deps.timeZone;
  }

  /** Applies a change; returns the amount actually applied (0 when capped or already at 0). */
  async change(tx: DbOrTx, change: PointChange): Promise<number> {
    const [row] = await tx
      .select({ points: member.points })
      .from(member)
      .where(eq(member.id, change.memberId))
      .for('update');
    if (!row) return 0;
    const applied = await this.applicableAmount(tx, change, row.points);
    if (applied === 0) return 0;
    await tx
      .update(member)
      .set({ points: sql`${member.points} + ${applied}` })
      .where(eq(member.id, change.memberId));
    await tx.insert(pointHistory).values({ memberId: change.memberId, amount: applied, reason: change.reason });
    return applied;
  }

  /** Whether the member ever received points for this reason (once-only rewards). */
  async hasReceived(tx: DbOrTx, memberId: number, reason: string): Promise<boolean> {
    const [row] = await tx
      .select({ id: pointHistory.id })
      .from(pointHistory)
      .where(and(eq(pointHistory.memberId, memberId), eq(pointHistory.reason, reason)))
      .limit(1);
    return row !== undefined;
  }

  async balance(db: DbOrTx, memberId: number): Promise<number> {
    const [row] = await db.select({ points: member.points }).from(member).where(eq(member.id, memberId));
    return row?.points ?? 0;
  }

  /** Newest first, at most `limit` (the spec caps the list at 100). */
  history(db: DbOrTx, memberId: number, limit = 100) {
    return db
      .select({
        id: pointHistory.id,
        amount: pointHistory.amount,
        reason: pointHistory.reason,
        createdAt: pointHistory.createdAt,
      })
      .from(pointHistory)
      .where(eq(pointHistory.memberId, memberId))
      .orderBy(desc(pointHistory.createdAt), desc(pointHistory.id))
      .limit(limit);
  }

  private async applicableAmount(tx: DbOrTx, change: PointChange, balance: number): Promise<number> {
    if (change.amount < 0) return -Math.min(-change.amount, balance);
    if (!change.dailyCap) return change.amount;
    const earned = await this.earnedToday(tx, change.memberId, change.dailyCap.reasons);
    return Math.max(0, Math.min(change.amount, change.dailyCap.max - earned));
  }

  private async earnedToday(tx: DbOrTx, memberId: number, reasons: readonly string[]): Promise<number> {
    const [row] = await tx
      .select({ total: sql<string>`coalesce(sum(${pointHistory.amount}), 0)` })
      .from(pointHistory)
      .where(
        and(
          eq(pointHistory.memberId, memberId),
          inArray(pointHistory.reason, [...reasons]),
          gt(pointHistory.amount, 0),
          gte(
            pointHistory.createdAt,
            sql`date_trunc('day', now() at time zone ${this.timeZone}) at time zone ${this.timeZone}`,
          ),
        ),
      );
    return Number(row?.total ?? 0);
  }
}
