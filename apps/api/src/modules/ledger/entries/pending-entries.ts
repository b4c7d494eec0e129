import type { Entry, PendingCount } from '@nestegg/contract';
import { accountEntry, type Database, type DbOrTx } from '@nestegg/db';
import { and, count, desc, eq, gte, lte, sql } from 'drizzle-orm';
import { NotFoundError } from '../../../lib/errors.js';
import { entryWithTagsColumns, toEntryResponse } from './entry.view.js';
import { MonthCompleteBonus, type MonthCompleteDeps } from './month-complete.js';

/** A pending expense as a notification makes it: content-keyed, its category already learned. */
export interface PendingExpense {
  /** The notification's content key: one entry per member and key. */
  key: string;
  date: string;
  amount: number;
  foreign: { currency: string; originalAmount: string; exchangeRate: string } | null;
  accountId: number | null;
  memo: string | null;
  category: string | null;
  installmentMonths: number | null;
}

/**
 * The entries face for notifications (spec, behaviour rule 2 and the pending state): pending expenses recorded
 * once per content key, confirmed, counted, and an approval removed when its cancellation arrives. Every
 * statement is scoped by the member; the balance, learning and sync follow through the triggers on the table.
 */
export class PendingEntries {
  private readonly bonus: MonthCompleteBonus;
  private readonly byId;
  private readonly idByKey;
  private readonly pendingCounter;

  constructor(private readonly deps: MonthCompleteDeps & { db: Database }) {
    this.bonus = new MonthCompleteBonus(deps);
    const p = sql.placeholder;
    const ofMember = eq(accountEntry.memberId, p('memberId'));
    this.byId = deps.db
      .select(entryWithTagsColumns)
      .from(accountEntry)
      .where(and(ofMember, eq(accountEntry.id, p('id'))))
      .prepare('pending_entries_entry_by_id');
    this.idByKey = deps.db
      .select({ id: accountEntry.id })
      .from(accountEntry)
      .where(and(ofMember, eq(accountEntry.notifKey, p('key'))))
      .prepare('pending_entries_entry_by_key');
    // `pending` as a literal predicate, so the partial index (member_id) WHERE pending serves it.
    this.pendingCounter = deps.db
      .select({ count: count() })
      .from(accountEntry)
      .where(and(ofMember, sql`${accountEntry.pending}`))
      .prepare('pending_entries_count');
  }

  /** The entry holding a content key, or null. */
  async idOfKey(memberId: number, key: string): Promise<number | null> {
    const [row] = await this.idByKey.execute({ memberId, key });
    return row?.id ?? null;
  }

  /**
   * Inserts the pending expense in the caller's transaction unless its key is taken (ON CONFLICT DO NOTHING: of
   * concurrent duplicates one inserts, the others wait for its commit and insert nothing); null when taken.
   */
  async record(tx: DbOrTx, memberId: number, expense: PendingExpense): Promise<Entry | null> {
    const [row] = await tx
      .insert(accountEntry)
      .values({
        memberId,
        type: 'EXPENSE',
        amount: expense.amount,
        entryDate: expense.date,
        memo: expense.memo,
        category: expense.category,
        accountId: expense.accountId,
        ...expense.foreign,
        installmentMonths: expense.installmentMonths,
        pending: true,
        notifKey: expense.key,
      })
      .onConflictDoNothing({ target: [accountEntry.memberId, accountEntry.notifKey] })
      .returning();
    return row ? toEntryResponse(row, []) : null;
  }

  /**
   * Confirms a pending entry; a confirmed one is answered as it is. The UPDATE of `pending` moves the wallet
   * balance and teaches the learning table (database triggers); the month-complete bonus is checked after.
   */
  async confirm(memberId: number, id: number): Promise<Entry> {
    const confirmed = await this.deps.db
      .update(accountEntry)
      .set({ pending: false })
      .where(and(eq(accountEntry.memberId, memberId), eq(accountEntry.id, id), sql`${accountEntry.pending}`))
      .returning({ id: accountEntry.id });
    const entry = await this.entry(memberId, id);
    if (confirmed.length > 0) await this.bonus.afterSave(memberId, entry);
    return entry;
  }

  async count(memberId: number): Promise<PendingCount> {
    const [row] = await this.pendingCounter.execute({ memberId });
    return { count: row?.count ?? 0 };
  }

  /**
   * Deletes, in the caller's transaction, the latest entry whose key starts with `keyPrefix` dated within
   * `dates`, pending or confirmed, and returns its id (null when there is none). The row is locked first.
   */
  async removeLatestWithKeyPrefix(
    tx: DbOrTx,
    memberId: number,
    keyPrefix: string,
    dates: { from: string; to: string },
  ): Promise<number | null> {
    const [found] = await tx
      .select({ id: accountEntry.id })
      .from(accountEntry)
      .where(
        and(
          eq(accountEntry.memberId, memberId),
          gte(accountEntry.entryDate, dates.from),
          lte(accountEntry.entryDate, dates.to),
          sql`starts_with(${accountEntry.notifKey}, ${keyPrefix})`,
        ),
      )
      .orderBy(desc(accountEntry.entryDate), desc(accountEntry.id))
      .limit(1)
      .for('update');
    if (!found) return null;
    await tx.delete(accountEntry).where(and(eq(accountEntry.memberId, memberId), eq(accountEntry.id, found.id)));
    return found.id;
  }

  private async entry(memberId: number, id: number): Promise<Entry> {
    const [row] = await this.byId.execute({ memberId, id });
    if (!row) throw new NotFoundError('entry');
    return toEntryResponse(row, row.tags);
  }
}
