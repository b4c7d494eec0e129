import type { CreateOnetimeBudgetRequest, OnetimeBudget, UpdateOnetimeBudgetRequest } from '@nestegg/contract';
import type { DbOrTx } from '@nestegg/db';
import { type SQL, sql } from 'drizzle-orm';
import { type AppError, NotFoundError, ValidationFailedError } from '../../../lib/errors.js';
import { shareMemberCategories } from '../../../lib/locks.js';
import { AmountOutOfRangeError, isAmountOutOfRange, pgErrorCode } from '../../../lib/pg-error.js';
import { unknownExpenseCategory } from './monthly-budgets.js';
import { isExpenseCategory, onetimeSpent } from './spent.js';

/**
 * One-time budgets: an amount over an inclusive date range, counting one expense category (with its
 * sub-categories) or, without one, every confirmed expense in the range.
 */

const CHECK_VIOLATION = '23514';

type OnetimeRow = {
  id: number;
  name: string;
  amount: string | number;
  start_date: string;
  end_date: string;
  category: string | null;
  memo: string | null;
  spent: string | number;
};

const toOnetimeBudget = (row: OnetimeRow): OnetimeBudget => ({
  id: row.id,
  name: row.name,
  amount: Number(row.amount),
  startDate: row.start_date,
  endDate: row.end_date,
  category: row.category,
  memo: row.memo,
  spent: Number(row.spent),
});

/** An empty memo is no memo. */
const memoOf = (memo: string | null | undefined) => (memo === undefined ? undefined : memo || null);

/** One-time budgets of the member matching `where` (over `budget_onetime b`), each with spent: one statement. */
function selectWithSpent(memberId: number, where: SQL): SQL {
  return sql`select b.id, b.name, b.amount, b.start_date::text as start_date, b.end_date::text as end_date,
      b.category, b.memo, ${onetimeSpent(memberId)} as spent
    from budget_onetime b
    where b.member_id = ${memberId} and ${where}
    order by b.start_date desc, b.id desc`;
}

async function onetimeById(db: DbOrTx, memberId: number, id: number): Promise<OnetimeBudget> {
  const [row] = await db.execute<OnetimeRow>(selectWithSpent(memberId, sql`b.id = ${id}`));
  if (!row) throw new NotFoundError('one-time budget');
  return toOnetimeBudget(row);
}

/** The member's one-time budgets overlapping `from`..`to` (each bound optional), newest start first. */
export async function listOnetime(
  db: DbOrTx,
  memberId: number,
  range: { from?: string; to?: string },
): Promise<OnetimeBudget[]> {
  const overlaps = sql.join(
    [
      sql`true`,
      ...(range.from ? [sql`b.end_date >= ${range.from}::date`] : []),
      ...(range.to ? [sql`b.start_date <= ${range.to}::date`] : []),
    ],
    sql` and `,
  );
  const rows = await db.execute<OnetimeRow>(selectWithSpent(memberId, overlaps));
  return rows.map(toOnetimeBudget);
}

/** A category, when named, must be one of the member's expense categories (an SQL boolean). */
const categoryAllowed = (memberId: number, category: string | null | undefined): SQL =>
  category ? isExpenseCategory(memberId, category) : sql`true`;

export function createOnetime(db: DbOrTx, memberId: number, body: CreateOnetimeBudgetRequest): Promise<OnetimeBudget> {
  return db.transaction(async (tx) => {
    if (body.category) await shareMemberCategories(tx, memberId);
    const inserted = await tx.execute<{ id: number }>(sql`
      insert into budget_onetime (member_id, name, amount, start_date, end_date, category, memo)
      select ${memberId}, ${body.name}, ${body.amount}, ${body.startDate}::date, ${body.endDate}::date,
        ${body.category ?? null}::text, ${memoOf(body.memo) ?? null}::text
       where ${categoryAllowed(memberId, body.category)}
      returning id`);
    if (inserted.length === 0) throw unknownExpenseCategory();
    return onetimeById(tx, memberId, inserted[0]!.id);
  });
}

/** The columns an update sets: exactly the fields the request sent (`null` clears category and memo). */
function assignments(body: UpdateOnetimeBudgetRequest): SQL[] {
  const set: SQL[] = [sql`updated_at = now()`];
  if (body.name !== undefined) set.push(sql`name = ${body.name}`);
  if (body.amount !== undefined) set.push(sql`amount = ${body.amount}`);
  if (body.startDate !== undefined) set.push(sql`start_date = ${body.startDate}::date`);
  if (body.endDate !== undefined) set.push(sql`end_date = ${body.endDate}::date`);
  if (body.category !== undefined) set.push(sql`category = ${body.category}::text`);
  if (body.memo !== undefined) set.push(sql`memo = ${memoOf(body.memo)}::text`);
  return set;
}

/** Changes the fields sent; the stored dates count when only one bound changes (end before start → 400). */
export function updateOnetime(
  db: DbOrTx,
  memberId: number,
  id: number,
  body: UpdateOnetimeBudgetRequest,
): Promise<OnetimeBudget> {
  return refuseEndBeforeStart(() =>
    db.transaction(async (tx) => {
      if (body.category) await shareMemberCategories(tx, memberId);
      const updated = await tx.execute(sql`
        update budget_onetime set ${sql.join(assignments(body), sql`, `)}
         where member_id = ${memberId} and id = ${id} and ${categoryAllowed(memberId, body.category)}
        returning id`);
      if (updated.length === 0) throw await whyNotUpdated(tx, memberId, id);
      return onetimeById(tx, memberId, id);
    }),
  );
}

async function whyNotUpdated(tx: DbOrTx, memberId: number, id: number): Promise<AppError> {
  const found = await tx.execute(sql`select 1 from budget_onetime where member_id = ${memberId} and id = ${id}`);
  return found.length === 0 ? new NotFoundError('one-time budget') : unknownExpenseCategory();
}

/** The date-order CHECK refusing a partial update → 400 naming `endDate`. */
async function refuseEndBeforeStart<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isAmountOutOfRange(error)) throw new AmountOutOfRangeError();
    if (pgErrorCode(error) === CHECK_VIOLATION) {
      throw new ValidationFailedError([{ path: 'body.endDate', message: 'before startDate' }]);
    }
    throw error;
  }
}

export async function deleteOnetime(db: DbOrTx, memberId: number, id: number): Promise<void> {
  const deleted = await db.execute(
    sql`delete from budget_onetime where member_id = ${memberId} and id = ${id} returning id`,
  );
  if (deleted.length === 0) throw new NotFoundError('one-time budget');
}
