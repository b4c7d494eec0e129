import {
  type CreateRecurringRequest,
  FREE_RECURRING_LIMIT,
  type Recurring,
  type UpdateRecurringRequest,
} from '@nestegg/contract';
import {
  type Database,
  type DbOrTx,
  type MemberPlan,
  type MemberRole,
  type Recurring as RecurringRow,
  recurring,
} from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { addDays, type CalendarDate, completeSchedule, dateIn, nextOccurrence } from '@nestegg/domain';
import { and, count, eq, sql } from 'drizzle-orm';
import { BadRequestError, NotFoundError, ValidationFailedError } from '../../../lib/errors.js';
import { lockRecurringLimit, shareMemberCategories } from '../../../lib/locks.js';
import { FOREIGN_KEY_VIOLATION, pgErrorCode } from '../../../lib/pg-error.js';
import { isPremiumOrAdmin } from '../../../lib/session.js';
import { resolveReferences } from '../kernel/index.js';

export interface RecurringsDeps {
  db: Database;
  /** Reads a replica may serve when the request's route allows it (decision DB20); the primary otherwise. */
  reader: Database;
  clock: Clock;
  /** `APP_TIMEZONE`: the calendar of occurrences. */
  timeZone: string;
}

/** Who is asking: the FREE limit depends on the plan and the role. */
export interface RecurringCaller {
  memberId: number;
  plan: MemberPlan;
  role: MemberRole;
}

const SCHEDULE_KEYS = ['frequency', 'dayOfMonth', 'dayOfWeek', 'monthOfYear', 'startDate'] as const;

type StoredFields = Omit<RecurringRow, 'id' | 'memberId' | 'createdAt' | 'updatedAt'>;

/** The next occurrence still to be posted: on or after today and after what is settled; null when none is left. */
export function nextDateOf(row: StoredFields, today: CalendarDate): CalendarDate | null {
  if (!row.active) return null;
  const settledUpTo = row.lastRunOn === null ? today : addDays(row.lastRunOn, 1);
  return nextOccurrence(row, settledUpTo > today ? settledUpTo : today);
}

/** The response shape of a stored row; `today` is the ledger's calendar day (for `nextDate`). Also for delta sync. */
export function toRecurring(row: RecurringRow, today: CalendarDate): Recurring {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    amount: row.amount,
    category: row.category,
    accountId: row.accountId,
    memo: row.memo,
    frequency: row.frequency,
    dayOfMonth: row.dayOfMonth,
    dayOfWeek: row.dayOfWeek,
    monthOfYear: row.monthOfYear,
    startDate: row.startDate,
    endDate: row.endDate,
    active: row.active,
    lastRunOn: row.lastRunOn,
    nextDate: nextDateOf(row, today),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function storedFields({
  id: _id,
  memberId: _member,
  createdAt: _created,
  updatedAt: _updated,
  ...fields
}: RecurringRow) {
  return fields;
}

/** Stored fields after applying a partial change: omitted keys keep their value, `null` clears. */
function merged(stored: StoredFields, change: UpdateRecurringRequest): StoredFields {
  const defined = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
  const next = { ...stored, ...defined } as StoredFields;
  return { ...next, ...completeSchedule(next.frequency, next.startDate, next) };
}

const scheduleChanged = (before: StoredFields, after: StoredFields) =>
  SCHEDULE_KEYS.some((key) => before[key] !== after[key]);

/**
 * Where the job resumes. A pause, and a schedule change after something was posted, apply from today on:
 * the days before are settled, so neither backfills occurrences the member did not expect.
 */
function settledDay(before: StoredFields, after: StoredFields, today: CalendarDate): CalendarDate | null {
  const yesterday = addDays(today, -1);
  const reactivated = !before.active && after.active;
  const rescheduled = before.lastRunOn !== null && scheduleChanged(before, after);
  if (!reactivated && !rescheduled) return before.lastRunOn;
  return before.lastRunOn !== null && before.lastRunOn > yesterday ? before.lastRunOn : yesterday;
}

function assertDateOrder(fields: Pick<StoredFields, 'startDate' | 'endDate'>): void {
  if (fields.endDate !== null && fields.endDate < fields.startDate) {
    throw new ValidationFailedError([{ path: 'body.endDate', message: 'before startDate' }]);
  }
}

/** A wallet deleted between the check and the write still fails the composite key: the same 404. */
async function walletChecked<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (pgErrorCode(error) === FOREIGN_KEY_VIOLATION) throw new NotFoundError('wallet');
    throw error;
  }
}

/** Recurring transactions: CRUD with the FREE limit; the billing worker posts their entries. */
export class RecurringsService {
  private readonly listQuery;

  constructor(private readonly deps: RecurringsDeps) {
    this.listQuery = deps.reader
      .select()
      .from(recurring)
      .where(eq(recurring.memberId, sql.placeholder('memberId')))
      .orderBy(recurring.id)
      .prepare('recurrings_list');
  }

  private today(): CalendarDate {
    return dateIn(this.deps.timeZone, this.deps.clock.now());
  }

  async list(memberId: number): Promise<Recurring[]> {
    const rows = await this.listQuery.execute({ memberId });
    const today = this.today();
    return rows.map((row) => toRecurring(row, today));
  }

  async create(caller: RecurringCaller, input: CreateRecurringRequest): Promise<Recurring> {
    const fields: StoredFields = {
      name: input.name,
      type: input.type,
      amount: input.amount,
      category: input.category ?? null,
      accountId: input.accountId ?? null,
      memo: input.memo ?? null,
      frequency: input.frequency,
      ...completeSchedule(input.frequency, input.startDate, input),
      startDate: input.startDate,
      endDate: input.endDate ?? null,
      active: input.active ?? true,
      lastRunOn: null,
    };
    const row = await this.deps.db.transaction(async (tx) => {
      await this.assertBelowLimit(tx, caller);
      await resolveReferences(tx, caller.memberId, {
        accountId: fields.accountId,
        category: { type: fields.type, name: fields.category },
      });
      const [created] = await walletChecked(() =>
        tx
          .insert(recurring)
          .values({ ...fields, memberId: caller.memberId })
          .returning(),
      );
      return created!;
    });
    return toRecurring(row, this.today());
  }

  async update(memberId: number, id: number, change: UpdateRecurringRequest): Promise<Recurring> {
    const today = this.today();
    const categoryTouched = change.category !== undefined || change.type !== undefined;
    const row = await this.deps.db.transaction(async (tx) => {
      // Before the row lock: a rename holding the category lock may be waiting for this row.
      if (categoryTouched) await shareMemberCategories(tx, memberId);
      const [stored] = await tx
        .select()
        .from(recurring)
        .where(and(eq(recurring.memberId, memberId), eq(recurring.id, id)))
        .for('update');
      if (!stored) throw new NotFoundError('recurring transaction');
      const before = storedFields(stored);
      const next = merged(before, change);
      assertDateOrder(next);
      await resolveReferences(tx, memberId, {
        accountId: change.accountId,
        ...(categoryTouched ? { category: { type: next.type, name: next.category } } : {}),
      });
      const [updated] = await walletChecked(() =>
        tx
          .update(recurring)
          .set({ ...next, lastRunOn: settledDay(before, next, today) })
          .where(and(eq(recurring.memberId, memberId), eq(recurring.id, id)))
          .returning(),
      );
      return updated!;
    });
    return toRecurring(row, today);
  }

  /** Entries already posted stay (their `recurring_id` empties, their occurrence date remains). */
  async delete(memberId: number, id: number): Promise<void> {
    const removed = await this.deps.db
      .delete(recurring)
      .where(and(eq(recurring.memberId, memberId), eq(recurring.id, id)))
      .returning({ id: recurring.id });
    if (removed.length === 0) throw new NotFoundError('recurring transaction');
  }

  /** FREE members keep at most 2: counted under a per-member lock, so parallel creations cannot both pass. */
  private async assertBelowLimit(tx: DbOrTx, caller: RecurringCaller): Promise<void> {
    if (isPremiumOrAdmin(caller)) return;
    await lockRecurringLimit(tx, caller.memberId);
    const [held] = await tx.select({ count: count() }).from(recurring).where(eq(recurring.memberId, caller.memberId));
    if ((held?.count ?? 0) >= FREE_RECURRING_LIMIT) {
      throw new BadRequestError(
        'RECURRING_LIMIT',
        `A FREE member may keep ${FREE_RECURRING_LIMIT} recurring transactions; PREMIUM has no limit.`,
      );
    }
  }
}
