import {
  type PageQuery,
  REPORTS_BLOCK_REASON,
  type ReportHistory,
  type ReportHistoryQuery,
  type ReportTargetType,
} from '@nestegg/contract';
import { type Database, member, moderationEvent, report, type Transaction } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { and, count, eq, isNull, lte, sql } from 'drizzle-orm';
import { BadRequestError, ConflictError } from '../../../lib/errors.js';
import type { Writer } from '../kernel/index.js';
import { type LockedTarget, lockReadableTarget, targetTable } from '../kernel/index.js';
import { reportHistory } from './report-history.js';
import { ReportList } from './report-list.js';

export interface ModerationRules {
  /** Counted open reports that block a target (the contract's `REPORTS_TO_BLOCK`). */
  reportsToBlock: number;
  /**
   * A report counts only when its reporter's account is at least this many days old
   * (`BOARD_REPORTER_MIN_AGE_DAYS`, decisions BD11, BD28); 0: every report counts.
   */
  countingMinAccountAgeDays: number;
}

export interface ModerationDeps extends ModerationRules {
  db: Database;
  clock: Clock;
  /** The api's public address: avatar URLs are absolute. */
  publicUrl: string;
}

const DAY_MS = 86_400_000;

/**
 * Reports, the automatic block and the admin's review. A report is history: dismissing or deleting the
 * content closes it (a `moderation_event` it points at) instead of deleting it, so the content as
 * reported and who resolved it stay, and a member reports a target once, ever. Every change to a
 * target's reports locks the target row first, so counts and blocks are race-free.
 */
export class ModerationService {
  private readonly reportList;

  constructor(private readonly deps: ModerationDeps) {
    this.reportList = new ReportList(deps.db, deps.publicUrl);
  }

  /** Files the actor's report; the target is blocked when its counted open reports reach the threshold. */
  async report(actor: Writer, type: ReportTargetType, targetId: number, reason: string): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      const target = await lockReadableTarget(tx, type, targetId, actor);
      if (target.authorId === actor.memberId) {
        throw new BadRequestError('OWN_CONTENT', 'You cannot report your own post or comment.');
      }
      const counted = await this.accountOldEnough(tx, actor.memberId);
      const filed = await tx
        .insert(report)
        .values({
          memberId: actor.memberId,
          targetType: type,
          targetId,
          reason,
          counted,
          snapshotTitle: type === 'POST' ? target.title : null,
          snapshotBody: target.body,
        })
        .onConflictDoNothing()
        .returning({ id: report.id });
      if (filed.length === 0) throw new ConflictError('ALREADY_REPORTED', 'You already reported this.');
      await tx.execute(sql`update ${targetTable(type)} set report_count = report_count + 1 where id = ${targetId}`);
      if (counted) await this.blockWhenReported(tx, type, targetId, target);
    });
  }

  /**
   * Closes the target's open reports (kept in the history, their reporters cannot report it again) and
   * unblocks it, whatever blocked it (reports or the spam filter). Nothing to dismiss: nothing written.
   */
  async dismiss(adminId: number, type: ReportTargetType, targetId: number): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      const target = await lockReadableTarget(tx, type, targetId, { memberId: adminId, isAdmin: true });
      if (!target.blocked && target.reportCount === 0) return;
      const [event] = await tx
        .insert(moderationEvent)
        .values({ targetType: type, targetId, action: 'DISMISSED', actorId: adminId })
        .returning({ id: moderationEvent.id });
      await closeOpenReports(tx, type, targetId, event!.id);
      await tx.execute(sql`
        update ${targetTable(type)} set report_count = 0, blocked = false, block_reason = null where id = ${targetId}`);
    });
  }

  list(query: PageQuery) {
    return this.reportList.page(query);
  }

  history(query: ReportHistoryQuery): Promise<ReportHistory> {
    return reportHistory(this.deps.db, query, this.deps.publicUrl);
  }

  /** Whether the member's account is old enough for their reports to count. */
  private async accountOldEnough(tx: Transaction, memberId: number): Promise<boolean> {
    // No age rule: counted without comparing the api's clock with the database's sign-up time.
    if (this.deps.countingMinAccountAgeDays === 0) return true;
    const bornBy = new Date(this.deps.clock.now().getTime() - this.deps.countingMinAccountAgeDays * DAY_MS);
    const [row] = await tx
      .select({ id: member.id })
      .from(member)
      .where(and(eq(member.id, memberId), lte(member.createdAt, bornBy)));
    return row !== undefined;
  }

  private async blockWhenReported(
    tx: Transaction,
    type: ReportTargetType,
    targetId: number,
    target: LockedTarget,
  ): Promise<void> {
    if (target.blocked) return;
    const [open] = await tx
      .select({ counted: count() })
      .from(report)
      .where(
        and(
          eq(report.targetType, type),
          eq(report.targetId, targetId),
          isNull(report.resolutionId),
          eq(report.counted, true),
        ),
      );
    if ((open?.counted ?? 0) < this.deps.reportsToBlock) return;
    await tx.execute(sql`
      update ${targetTable(type)} set blocked = true, block_reason = ${REPORTS_BLOCK_REASON} where id = ${targetId}`);
    await tx
      .insert(moderationEvent)
      .values({ targetType: type, targetId, action: 'BLOCKED', reason: REPORTS_BLOCK_REASON, actorId: null });
  }
}

async function closeOpenReports(tx: Transaction, type: ReportTargetType, targetId: number, eventId: number) {
  await tx
    .update(report)
    .set({ resolutionId: eventId })
    .where(and(eq(report.targetType, type), eq(report.targetId, targetId), isNull(report.resolutionId)));
}
