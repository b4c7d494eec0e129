import { randomInt } from 'node:crypto';
import { accountEntry, type Database, pointHistory } from '@nestegg/db';
import { type Clock, dateIn, type MonthSpan, monthOf } from '@nestegg/domain';
import { and, countDistinct, eq, gte, lte, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { pgErrorCode, UNIQUE_VIOLATION } from '../../../lib/pg-error.js';
import { monthCompleteReason, type PointsService } from '../../members/points/index.js';

export interface MonthCompleteDeps {
  db: Database;
  clock: Clock;
  points: PointsService;
  logger: FastifyBaseLogger;
  /** Whose calendar decides "the current month" (`APP_TIMEZONE`). */
  timeZone: string;
}

/** The bonus is 1..100 points, drawn uniformly. */
const BONUS_MIN = 1;
const BONUS_MAX = 100;

/**
 * The month-complete bonus (spec, Limits): saving a confirmed entry dated in the current month, when every
 * day of that month has a confirmed entry of the member, grants 1..100 points once per month
 * (`MONTH_COMPLETE_<yyyyMM>`, shown only in point history).
 *
 * It runs after the entry's own transaction has committed: each save then looks after its own commit, so
 * of two saves completing the month together at least the later one sees every day, and the unique index
 * on once-only reasons lets exactly one grant in. It holds no lock of the entry's transaction, so it cannot
 * deadlock with the member-row lock the points take.
 */
export class MonthCompleteBonus {
  private readonly progress;

  constructor(private readonly deps: MonthCompleteDeps) {
    const p = sql.placeholder;
    this.progress = deps.db
      .select({
        days: countDistinct(accountEntry.entryDate),
        granted: sql<boolean>`exists (select 1 from ${pointHistory} h
          where h.member_id = ${p('memberId')} and h.reason = ${p('reason')})`,
      })
      .from(accountEntry)
      .where(
        and(
          eq(accountEntry.memberId, p('memberId')),
          eq(accountEntry.pending, false),
          gte(accountEntry.entryDate, p('first')),
          lte(accountEntry.entryDate, p('last')),
        ),
      )
      .prepare('entries_month_progress');
  }

  /** Called once a saved entry has committed; never fails the save (a failure is logged). */
  async afterSave(memberId: number, saved: { date: string; pending: boolean }): Promise<void> {
    if (saved.pending) return;
    const month = monthOf(dateIn(this.deps.timeZone, this.deps.clock.now()));
    if (saved.date < month.first || saved.date > month.last) return;
    try {
      await this.grantIfComplete(memberId, month);
    } catch (error) {
      this.deps.logger.error({ err: error, memberId }, 'month-complete bonus failed');
    }
  }

  private async grantIfComplete(memberId: number, month: MonthSpan): Promise<void> {
    const reason = monthCompleteReason(month.year, month.month);
    const [progress] = await this.progress.execute({ memberId, reason, first: month.first, last: month.last });
    if (!progress || progress.granted || progress.days < month.days) return;
    const amount = randomInt(BONUS_MIN, BONUS_MAX + 1);
    try {
      await this.deps.db.transaction((tx) => this.deps.points.change(tx, { memberId, amount, reason }));
    } catch (error) {
      if (pgErrorCode(error) !== UNIQUE_VIOLATION) throw error;
    }
  }
}
