import { type Database, type DbOrTx, type Recurring, recurring } from '@nestegg/db';
import { addDays, type CalendarDate, dateIn, occurrencesBetween } from '@nestegg/domain';
import { and, asc, eq, isNull, lt, lte, or, sql } from 'drizzle-orm';
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
  'memberId' | 'id' | 'frequency' | 'dayOfMonth' | 'dayOfWeek' | 'monthOfYear' | 'startDate' | 'endDate' | 'lastRunOn'
>;

/** Where a run stands: after this recurring, in key order (member, id). */
interface Position {
  memberId: number;
  id: number;
}

interface Occurrence {
  memberId: number;
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
 * crash. Plain inserts: the balance and change-log triggers fire as for any entry. Each recurring is
 * found by its key (member, id): the entry and its recurring are rows of one member (decision L5).
 * A member whose postings would take their amounts past 2^53 − 1 (the ledger volume, decision FI2) gets none
 * of this batch's: they are settled unposted, so one member cannot make every run fail on the volume check.
 */
async function insertEntries(tx: DbOrTx, occurrences: Occurrence[]): Promise<number> {
  if (occurrences.length === 0) return 0;
  const members = arrayLiteral(occurrences.map((o) => o.memberId));
  const ids = arrayLiteral(occurrences.map((o) => o.recurringId));
  const days = arrayLiteral(occurrences.map((o) => o.day));
  const inserted = await tx.execute(sql`
    insert into account_entry
      (member_id, account_id, type, amount, entry_date, memo, category, pending, recurring_id, occurrence_date)
    select p.member_id, p.account_id, p.type, p.amount, p.day, p.memo, p.category, false, p.id, p.day
      from (
        select r.member_id, r.account_id, r.type, r.amount, o.day, coalesce(r.memo, r.name) as memo, r.category, r.id,
               sum(r.amount::numeric) over (partition by r.member_id) as batch_total
          from unnest(${members}::int[], ${ids}::int[], ${days}::date[]) as o(member_id, recurring_id, day)
          join recurring r on r.member_id = o.member_id and r.id = o.recurring_id
      ) p
     where p.batch_total + coalesce((select v.volume from ledger_volume v where v.member_id = p.member_id), 0)
           <= 9007199254740991
    on conflict on constraint account_entry_member_occurrence_uq do nothing
    returning id`);
  return inserted.length;
}

/** Each recurring's `last_run_on` moves to its latest posted occurrence (never back). */
async function markSettled(tx: DbOrTx, occurrences: Occurrence[]): Promise<void> {
  const latest = new Map<number, Occurrence>();
  for (const occurrence of occurrences) {
    const known = latest.get(occurrence.recurringId);
    if (!known || occurrence.day > known.day) latest.set(occurrence.recurringId, occurrence);
  }
  if (latest.size === 0) return;
  const settled = [...latest.values()];
  await tx.execute(sql`
    update recurring r set last_run_on = v.day, updated_at = now()
      from unnest(${arrayLiteral(settled.map((o) => o.memberId))}::int[],
                  ${arrayLiteral(settled.map((o) => o.recurringId))}::int[],
                  ${arrayLiteral(settled.map((o) => o.day))}::date[]) as v(member_id, id, day)
     where r.member_id = v.member_id and r.id = v.id and (r.last_run_on is null or r.last_run_on < v.day)`);
}

/**
 * One batch in one transaction: its rows locked (a member's edit waits, a parallel run re-reads them after us).
 * Batches follow the key (member, id) through the active recurrings' index (`recurring_member_active_idx`).
 */
async function postBatch(db: Database, today: CalendarDate, after: Position) {
  return db.transaction(async (tx) => {
    const due: Due[] = await tx
      .select({
        memberId: recurring.memberId,
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
          sql`(${recurring.memberId}, ${recurring.id}) > (${after.memberId}::int, ${after.id}::int)`,
          eq(recurring.active, true),
          lte(recurring.startDate, today),
          or(isNull(recurring.lastRunOn), lt(recurring.lastRunOn, today)),
          or(isNull(recurring.endDate), isNull(recurring.lastRunOn), lt(recurring.lastRunOn, recurring.endDate)),
        ),
      )
      .orderBy(asc(recurring.memberId), asc(recurring.id))
      .limit(POSTING_BATCH_SIZE)
      .for('update');
    const occurrences = due.flatMap((rule) =>
      occurrencesDue(rule, today).map((day) => ({ memberId: rule.memberId, recurringId: rule.id, day })),
    );
    const posted = await insertEntries(tx, occurrences);
    await markSettled(tx, occurrences);
    const last = due.at(-1);
    return { scanned: due.length, posted, last: last && { memberId: last.memberId, id: last.id } };
  });
}

/** Posts every occurrence that fell due up to `today` (the ledger's calendar day), batch by batch. */
export async function postDueRecurrings(db: Database, today: CalendarDate): Promise<PostingSummary> {
  const summary: PostingSummary = { today, scanned: 0, posted: 0 };
  for (let after: Position = { memberId: 0, id: 0 }; ; ) {
    const batch = await postBatch(db, today, after);
    summary.scanned += batch.scanned;
    summary.posted += batch.posted;
    if (batch.last === undefined) return summary;
    after = batch.last;
  }
}

export const recurringPostingJob: ScheduledJob = {
  queue: RECURRING_POSTING_QUEUE,
  cron: (env) => env.RECURRING_POSTING_CRON,
  run: async ({ db, now, timeZone }) => ({ ...(await postDueRecurrings(db, dateIn(timeZone, now()))) }),
};
