import type { DbOrTx } from '@nestegg/db';
import type { CalendarDate } from '@nestegg/domain';
import { sql } from 'drizzle-orm';

/**
 * Every advisory lock the api takes, each with its key, all transaction-scoped (released at commit or
 * rollback). The keys are stored nowhere but here: a writer and the restore that must exclude it take the
 * same function, not a copy of its key.
 *
 * Order (deadlock freedom): a transaction that holds more than one of the member's locks takes them in the
 * order they are written below (the statement-import lock first): recurring limit, wallet set, tags, categories. The restore takes all
 * four (`lockMemberLedger`); a FREE recurring creation takes the limit lock and then shares the category
 * lock; no writer takes an earlier one after a later one, so no two transactions wait on each other. The
 * locks after them (board tags, board images, an exchange rate) are never held with another lock.
 */

// A member's statement imports: taken before any of the ledger's locks below.

/**
 * Serialises one member's statement-import commits and undos ("IMP"): two imports committing at once cannot both
 * claim one entry for a match or both decide a row new (decision SI3).
 */
export async function lockMemberImports(tx: DbOrTx, memberId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('nestegg.statement-import'), ${memberId}::int)`);
}

// The member's ledger, in the order they are taken.

/** Serialises one member's recurring creations, so parallel ones cannot both pass the FREE limit ("REC"). */
export async function lockRecurringLimit(tx: DbOrTx, memberId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${0x52_45_43}::int, ${memberId}::int)`);
}

/**
 * Serialises the writes that count or order a member's wallets ("WALL"): two creates at once cannot both
 * pass the limit or take the same `sortOrder`.
 */
export async function lockWalletSet(tx: DbOrTx, memberId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${0x57414c4c}, ${memberId})`);
}

/** Serialises the member's tag writes: sort orders and the reorder's "all tags" check see a settled set. */
export async function lockMemberTags(tx: DbOrTx, memberId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('nestegg.tag'), ${memberId}::int)`);
}

/** Serializes the member's category writes until the transaction ends. */
export async function lockMemberCategories(tx: DbOrTx, memberId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('nestegg.category'), ${memberId}::int)`);
}

/**
 * Taken by writes that name a category (entries, recurrings, quick entries, budgets) before they check the
 * name: a rename then either sees their row and renames it, or has committed before they check.
 */
export async function shareMemberCategories(tx: DbOrTx, memberId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock_shared(hashtext('nestegg.category'), ${memberId}::int)`);
}

/** Every per-member ledger lock above, in their order: keeps every other ledger write of the member out. */
export async function lockMemberLedger(tx: DbOrTx, memberId: number): Promise<void> {
  await lockRecurringLimit(tx, memberId);
  await lockWalletSet(tx, memberId);
  await lockMemberTags(tx, memberId);
  await lockMemberCategories(tx, memberId);
}

// Each held alone.

/** Serialises the board's tag groups and tags (one lock for the whole area: admins write it rarely). */
export async function lockBoardTags(tx: DbOrTx): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('nestegg.board-tags'))`);
}

/** Serialises one member's board-image uploads, so parallel uploads cannot all pass the quota. */
export async function lockBoardImageUploads(tx: DbOrTx, memberId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('nestegg.board-image'), ${memberId}::int)`);
}

/** Serialises, across replicas, the provider call for one currency pair and day. */
export async function lockExchangeRate(tx: DbOrTx, from: string, to: string, day: CalendarDate): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`fx:${from}/${to}/${day}`}, 0))`);
}
