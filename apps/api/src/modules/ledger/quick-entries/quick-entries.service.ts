import type { CreateQuickEntryRequest, QuickEntry, UpdateQuickEntryRequest } from '@nestegg/contract';
import { SORT_ORDER_MAX } from '@nestegg/contract';
import { type Database, type DbOrTx, quickEntry } from '@nestegg/db';
import { and, asc, eq, sql } from 'drizzle-orm';
import { NotFoundError } from '../../../lib/errors.js';
import { shareMemberCategories } from '../../../lib/locks.js';
import { resolveReferences, withConstraintErrors } from '../kernel/index.js';
import { toQuickEntryResponse } from './quick-entry.view.js';

export interface QuickEntriesDeps {
  db: Database;
  /** Reads a replica may serve when the request's route allows it (decision DB20); the primary otherwise. */
  reader: Database;
}

type QuickEntryRow = typeof quickEntry.$inferSelect;
type QuickEntryChanges = Partial<typeof quickEntry.$inferInsert>;

/** An empty memo is no memo. */
const memoOf = (memo: string | null | undefined) => (memo === undefined ? undefined : memo || null);

/** The columns a write sets: exactly the fields sent (`null` clears). */
function changesOf(body: UpdateQuickEntryRequest): QuickEntryChanges {
  const changes: QuickEntryChanges = {
    name: body.name,
    type: body.type,
    amount: body.amount,
    category: body.category,
    accountId: body.accountId,
    memo: memoOf(body.memo),
    sortOrder: body.sortOrder,
  };
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
}

/**
 * Last place among the member's templates, computed inside the INSERT; never past SORT_ORDER_MAX (FI3: new
 * templates share the top place, and the list's id order puts them last).
 */
const lastPlace = (memberId: number) =>
  sql<number>`(select least(coalesce(max(${quickEntry.sortOrder})::bigint + 1, 0), ${SORT_ORDER_MAX})::int from ${quickEntry} where ${quickEntry.memberId} = ${memberId})`;

/**
 * Quick-entry templates: CRUD by the member. A template's category and wallet follow the entries' rules
 * (a category of the template's type, by name; one of the member's wallets); a new template goes last.
 */
export class QuickEntriesService {
  private readonly listOf;

  constructor(readonly deps: QuickEntriesDeps) {
    this.listOf = deps.reader
      .select()
      .from(quickEntry)
      .where(eq(quickEntry.memberId, sql.placeholder('memberId')))
      .orderBy(asc(quickEntry.sortOrder), asc(quickEntry.id))
      .prepare('quick_entries_list');
  }

  /** The member's templates by sort order, then id. */
  async list(memberId: number): Promise<QuickEntry[]> {
    return (await this.listOf.execute({ memberId })).map(toQuickEntryResponse);
  }

  async create(memberId: number, body: CreateQuickEntryRequest): Promise<QuickEntry> {
    return withConstraintErrors(() =>
      this.deps.db.transaction(async (tx) => {
        await resolveReferences(tx, memberId, {
          accountId: body.accountId,
          category: { type: body.type, name: body.category ?? null },
        });
        const [row] = await tx
          .insert(quickEntry)
          .values({ ...changesOf(body), memberId, name: body.name, sortOrder: body.sortOrder ?? lastPlace(memberId) })
          .returning();
        return toQuickEntryResponse(row!);
      }),
    );
  }

  /** Changes the fields sent; a new type re-checks the stored category against it. */
  async update(memberId: number, id: number, body: UpdateQuickEntryRequest): Promise<QuickEntry> {
    return withConstraintErrors(() =>
      this.deps.db.transaction(async (tx) => {
        const categoryTouched = body.category !== undefined || body.type !== undefined;
        // Before the row lock: a rename holding the category lock may be waiting for this row.
        if (categoryTouched) await shareMemberCategories(tx, memberId);
        const stored = await this.locked(tx, memberId, id);
        const changes = changesOf(body);
        if (Object.keys(changes).length === 0) return toQuickEntryResponse(stored);
        const next = { ...stored, ...changes } as QuickEntryRow;
        await resolveReferences(tx, memberId, {
          ...(body.accountId !== undefined ? { accountId: body.accountId } : {}),
          ...(categoryTouched ? { category: { type: next.type, name: next.category } } : {}),
        });
        const [row] = await tx.update(quickEntry).set(changes).where(this.ofMember(memberId, id)).returning();
        return toQuickEntryResponse(row!);
      }),
    );
  }

  async delete(memberId: number, id: number): Promise<void> {
    const deleted = await this.deps.db
      .delete(quickEntry)
      .where(this.ofMember(memberId, id))
      .returning({ id: quickEntry.id });
    if (deleted.length === 0) throw new NotFoundError('quick entry');
  }

  private async locked(tx: DbOrTx, memberId: number, id: number): Promise<QuickEntryRow> {
    const [stored] = await tx.select().from(quickEntry).where(this.ofMember(memberId, id)).for('update');
    if (!stored) throw new NotFoundError('quick entry');
    return stored;
  }

  private ofMember(memberId: number, id: number) {
    return and(eq(quickEntry.memberId, memberId), eq(quickEntry.id, id));
  }
}
