import { type Database, type DbOrTx, type Recurring, recurring } from '@nestegg/db';
import { addDays, type CalendarDate, localDate, occurrencesBetween } from '@nestegg/domain';
import { and, asc, eq, gt, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { ScheduledJob } from './job.js';

export const RECURRING_POSTING_QUEUE = 'recurring-posting';

/** How far back a run catches up after downtime: today and the 365 days before it. Older occurrences are dropped. */
export const CATCH_UP_DAYS = 366;

/** Recurring transactions handled per transaction: three statements per batch, whatever the occurrences. */
export const POSTING_BATCH_SIZE = 500;

export interface PostingSummary {
  today: CalendarDate;
  /** Recurring transactions looked at (active, started, not settled through today). */
  scanned: number;
  /** Entries created (occurrences another run had posted already are not counted). */
  posted: number;
}

type Due = Pick<
  Recurring,
  'id' | 'frequency' | 'dayOfMonth' | 'dayOfWeek' | 'monthOfYear' | 'startDate' | 'endDate' | 'lastRunOn'
>;

interface Occurrence {
  recurringId: number;
  day: CalendarDate;
}

const later = (a: CalendarDate, b: CalendarDate) => (a > b ? a : b);

/** The occurrences of one recurring still to post: after what is settled, within the catch-up window, up to today. */
export function occurrencesDue(rule: Due, today: CalendarDate): CalendarDate[] {
  const windowStart = addDays(today, 1 - CATCH_UP_DAYS);
  const resumeFrom = rule.lastRunOn === null ? rule.startDate : addDays(rule.lastRunOn, 1);
  return occurrencesBetween(rule, later(resumeFrom, windowStart), today);
}

/** A PostgreSQL array literal of values we produced ourselves (integers, `YYYY-MM-DD` dates). */
const arrayLiteral = (values: readonly (number | string)[]) => `{${values.join(',')}}`;

/**
 * The batch's entries in one statement. The unique key (member, recurring, occurrence date) with
 * ON CONFLICT DO NOTHING posts each occurrence once, whatever runs at the same time or ran before a
 * crash. Plain inserts: the balance and change-log triggers fire as for any entry.
 */
async function insertEntries(tx: DbOrTx, occurrences: Occurrence[]): Promise<number> {
  if (occurrences.length === 0) return 0;
  const ids = arrayLiteral(occurrences.map((o) => o.recurringId));
  const days = arrayLiteral(occurrences.map((o) => o.day));
  const inserted = await tx.execute(sql`
    insert into account_entry
      (member_id, account_id, type, amount, entry_date, memo, category, pending, recurring_id, occurrence_date)
    select r.member_id, r.account_id, r.type, r.amount, o.day, coalesce(r.memo, r.name), r.category, false, r.id, o.day
      from unnest(${ids}::int[], ${days}::date[]) as o(recurring_id, day)
      join recurring r on r.id = o.recurring_id
    on conflict on constraint account_entry_member_occurrence_uq do nothing
    returning id`);
  return inserted.length;
}

/** Each recurring's `last_run_on` moves to its latest posted occurrence (never back). */
async function markSettled(tx: DbOrTx, occurrences: Occurrence[]): Promise<void> {
  const latest = new Map<number, CalendarDate>();
  for (const { recurringId, day } of occurrences) latest.set(recurringId, later(latest.get(recurringId) ?? day, day));
  if (latest.size === 0) return;
  await tx.execute(sql`
    update recurring r set last_run_on = v.day, updated_at = now()
      from unnest(${arrayLiteral([...latest.keys()])}::int[], ${arrayLiteral([...latest.values()])}::date[])
        as v(id, day)
     where r.id = v.id and (r.last_run_on is null or r.last_run_on < v.day)`);
}

/** One batch in one transaction: its rows locked (a member's edit waits, a parallel run re-reads them after us). */
async function postBatch(db: Database, today: CalendarDate, afterId: number) {
  return db.transaction(async (tx) => {
    const due: Due[] = await tx
      .select({
        id: recurring.id,
        frequency: recurring.frequency,
        dayOfMonth: recurring.dayOfMonth,
        dayOfWeek: recurring.dayOfWeek,
        monthOfYear: recurring.monthOfYear,
        startDate: recurring.startDate,
        endDate: recurring.endDate,
        lastRunOn: recurring.lastRunOn,
      })
      .from(recurring)
      .where(
        and(
          gt(recurring.id, afterId),
          eq(recurring.active, true),
          lte(recurring.startDate, today),
          or(isNull(recurring.lastRunOn), lt(recurring.lastRunOn, today)),
          or(isNull(recurring.endDate), isNull(recurring.lastRunOn), lt(recurring.lastRunOn, recurring.endDate)),
        ),
      )
      .orderBy(asc(recurring.id))
      .limit(POSTING_BATCH_SIZE)
      .for('update');
    const occurrences = due.flatMap((rule) =>
      occurrencesDue(rule, today).map((day) => ({ recurringId: rule.id, day })),
    );
    const posted = await insertEntries(tx, occurrences);
    await markSettled(tx, occurrences);
    return { scanned: due.length, posted, lastId: due.at(-1)?.id };
  });
}

/** Posts every occurrence that fell due up to `today` (the ledger's calendar day), batch by batch. */
export async function postDueRecurrings(db: Database, today: CalendarDate): Promise<PostingSummary> {
  const summary: PostingSummary = { today, scanned: 0, posted: 0 };
  for (let afterId = 0; ; ) {
    const batch = await postBatch(db, today, afterId);
    summary.scanned += batch.scanned;
    summary.posted += batch.posted;
    if (batch.lastId === undefined) return summary;
    afterId = batch.lastId;
  }
}

export const recurringPostingJob: ScheduledJob = {
  queue: RECURRING_POSTING_QUEUE,
  cron: (env) => env.RECURRING_POSTING_CRON,
  run: async ({ db, now, timeZone }) => ({ ...(await postDueRecurrings(db, localDate(now(), timeZone))) }),
};
