import type { ModerationEvent, ReportHistory, ReportHistoryQuery, ReportRecord } from '@nestegg/contract';
import { type Database, member, moderationEvent, report } from '@nestegg/db';
import { and, count, desc, eq } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { type AuthorRow, assertOffsetAllowed, toAuthor } from '../kernel/index.js';

/** Events listed with a history (a target sees a handful: blocks and dismissals). */
const EVENTS_SHOWN = 50;

const reporter = alias(member, 'reporter');
const actor = alias(member, 'actor');
const reporterColumns = {
  id: reporter.id,
  displayName: reporter.displayName,
  profileImageHash: reporter.profileImageHash,
  idponePicture: reporter.idponePicture,
};
const actorColumns = {
  id: actor.id,
  displayName: actor.displayName,
  profileImageHash: actor.profileImageHash,
  idponePicture: actor.idponePicture,
};

interface EventRow {
  action: ModerationEvent['action'];
  reason: string | null;
  at: Date;
  actor: AuthorRow | null;
}

/**
 * Every report of a target, open and closed, newest first, with the content as reported and the event
 * that closed each; plus the target's events (blocks, dismissals, deletion). Three statements in parallel.
 */
export async function reportHistory(
  db: Database,
  query: ReportHistoryQuery,
  publicUrl: string,
): Promise<ReportHistory> {
  const { targetType, targetId, page, size } = query;
  assertOffsetAllowed(page, size, undefined);
  const ofTarget = and(eq(report.targetType, targetType), eq(report.targetId, targetId));
  const eventsOfTarget = and(eq(moderationEvent.targetType, targetType), eq(moderationEvent.targetId, targetId));
  const [rows, [counted], events] = await Promise.all([
    db
      .select({
        id: report.id,
        reason: report.reason,
        counted: report.counted,
        reportedAt: report.createdAt,
        title: report.snapshotTitle,
        body: report.snapshotBody,
        reporter: reporterColumns,
        event: { action: moderationEvent.action, reason: moderationEvent.reason, at: moderationEvent.createdAt },
        actor: actorColumns,
      })
      .from(report)
      .innerJoin(reporter, eq(reporter.id, report.memberId))
      .leftJoin(moderationEvent, eq(moderationEvent.id, report.resolutionId))
      .leftJoin(actor, eq(actor.id, moderationEvent.actorId))
      .where(ofTarget)
      .orderBy(desc(report.id))
      .limit(size)
      .offset((page - 1) * size),
    db.select({ total: count() }).from(report).where(ofTarget),
    db
      .select({
        action: moderationEvent.action,
        reason: moderationEvent.reason,
        at: moderationEvent.createdAt,
        actor: actorColumns,
      })
      .from(moderationEvent)
      .leftJoin(actor, eq(actor.id, moderationEvent.actorId))
      .where(eventsOfTarget)
      .orderBy(desc(moderationEvent.id))
      .limit(EVENTS_SHOWN),
  ]);
  return {
    items: rows.map(
      (row): ReportRecord => ({
        id: row.id,
        reporter: toAuthor(row.reporter, publicUrl),
        reason: row.reason,
        counted: row.counted,
        reportedAt: row.reportedAt.toISOString(),
        title: row.title,
        body: row.body,
        resolution: row.event ? toEvent({ ...row.event, actor: row.actor }, publicUrl) : null,
      }),
    ),
    page,
    size,
    total: counted?.total ?? 0,
    events: events.map((event) => toEvent(event, publicUrl)),
  };
}

function toEvent(row: EventRow, publicUrl: string): ModerationEvent {
  return {
    action: row.action,
    reason: row.reason,
    at: row.at.toISOString(),
    actor: row.actor ? toAuthor(row.actor, publicUrl) : null,
  };
}
