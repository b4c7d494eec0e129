import type { CreateEntryRequest, Entry, EntryListQuery, EntryPage, UpdateEntryRequest } from '@nestegg/contract';
import { accountEntry, type Database, type DbOrTx, entryTag } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { and, eq, notInArray, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { NotFoundError, PremiumRequiredError } from '../../../lib/errors.js';
import { shareMemberCategories } from '../../../lib/locks.js';
import type { PointsService } from '../../members/points/index.js';
import { assertInstalmentWallet, type ResolvedTag, resolveReferences, withConstraintErrors } from '../kernel/index.js';
import { type EntryWithTags, entryWithTagsColumns, tagNamesInOrder, toEntryResponse } from './entry.view.js';
import { EntryList } from './entry-list.js';
import { MonthCompleteBonus } from './month-complete.js';

export interface EntriesDeps {
  db: Database;
  /** Reads a replica may serve when the request's route allows it (decision DB20); the primary otherwise. */
  reader: Database;
  clock: Clock;
  points: PointsService;
  logger: FastifyBaseLogger;
  /** `APP_TIMEZONE`: whose calendar decides "the current month" of the month-complete bonus. */
  timeZone: string;
}

/** Who writes: the member, and whether their plan includes tags (PREMIUM or ADMIN). */
export interface EntryActor {
  memberId: number;
  mayUseTags: boolean;
}

type EntryRow = typeof accountEntry.$inferSelect;
type EntryChanges = Partial<typeof accountEntry.$inferInsert>;

/** Tags are premium: a FREE member may send none (an empty list, which clears them, is fine). */
function assertTagsAllowed(actor: EntryActor, tags: readonly string[] | undefined): void {
  if (tags && tags.length > 0 && !actor.mayUseTags) throw new PremiumRequiredError();
}

/** An empty memo is no memo. */
const memoOf = (memo: string | null | undefined) => (memo === undefined ? undefined : memo || null);

/** The columns an update sets: exactly the fields the request sent (`null` clears). */
function changesOf(body: UpdateEntryRequest): EntryChanges {
  const changes: EntryChanges = {
    type: body.type,
    amount: body.amount,
    entryDate: body.date,
    memo: memoOf(body.memo),
    category: body.category,
    accountId: body.accountId,
    currency: body.currency,
    originalAmount: body.originalAmount,
    exchangeRate: body.exchangeRate,
    installmentMonths: body.installmentMonths,
  };
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
}

/** The stored row with the request's changes applied: what the rules are checked against. */
function merged(stored: EntryRow, changes: EntryChanges): EntryRow {
  return { ...stored, ...changes } as EntryRow;
}

/**
 * Ledger entries: CRUD with the spec's fields, the filtered list, and the month-complete bonus. Every
 * statement is scoped by the member; a write and its tags are one transaction. The database backs the
 * field rules (CHECKs, composite wallet keys); the references (wallet type, category, tags) are checked
 * in the same transaction.
 */
export class EntriesService {
  private readonly entryList: EntryList;
  private readonly bonus: MonthCompleteBonus;
  private readonly byId;

  constructor(readonly deps: EntriesDeps) {
    this.entryList = new EntryList(deps.reader);
    this.bonus = new MonthCompleteBonus(deps);
    const p = sql.placeholder;
    this.byId = deps.db
      .select(entryWithTagsColumns)
      .from(accountEntry)
      .where(and(eq(accountEntry.memberId, p('memberId')), eq(accountEntry.id, p('id'))))
      .prepare('entries_by_id');
  }

  /** One page of the member's entries matching the filters (see `EntryList`). */
  list(memberId: number, query: EntryListQuery): Promise<EntryPage> {
    return this.entryList.list(memberId, query);
  }

  async get(memberId: number, id: number): Promise<Entry> {
    const [row] = await this.byId.execute({ memberId, id });
    if (!row) throw new NotFoundError('entry');
    return toEntryResponse(row, row.tags);
  }

  /** Records a confirmed entry (pending entries come from card notifications only). */
  async create(actor: EntryActor, body: CreateEntryRequest): Promise<Entry> {
    assertTagsAllowed(actor, body.tags);
    const { memberId } = actor;
    const saved = await withConstraintErrors(() =>
      this.deps.db.transaction(async (tx) => {
        const refs = await resolveReferences(tx, memberId, {
          accountId: body.accountId,
          category: { type: body.type, name: body.category ?? null },
          tagNames: body.tags,
        });
        assertInstalmentWallet(body.installmentMonths ?? null, refs.walletType ?? null);
        const [row] = await tx
          .insert(accountEntry)
          .values({ memberId, ...changesOf(body), type: body.type, amount: body.amount, entryDate: body.date })
          .returning();
        await this.addTags(tx, memberId, row!.id, refs.tags);
        return toEntryResponse(row!, tagNamesInOrder(refs.tags));
      }),
    );
    await this.bonus.afterSave(memberId, saved);
    return saved;
  }

  /**
   * Changes the fields sent, keeping the others. The merged row must still meet every rule: the category
   * exists for the (possibly new) type, instalments sit on a CARD wallet, and the CHECKs hold (a breach is
   * 400). Sent `tags` replace the entry's tags.
   */
  async update(actor: EntryActor, id: number, body: UpdateEntryRequest): Promise<Entry> {
    assertTagsAllowed(actor, body.tags);
    const { memberId } = actor;
    const saved = await withConstraintErrors(() =>
      this.deps.db.transaction(async (tx) => {
        const categoryTouched = body.category !== undefined || body.type !== undefined;
        // Before the row lock: a rename holding the category lock may be waiting for this row.
        if (categoryTouched) await shareMemberCategories(tx, memberId);
        const stored = await this.lockedEntry(tx, memberId, id);
        const changes = changesOf(body);
        const next = merged(stored, changes);
        const walletTouched = body.accountId !== undefined || body.installmentMonths !== undefined;
        const refs = await resolveReferences(tx, memberId, {
          ...(walletTouched ? { accountId: next.accountId } : {}),
          ...(categoryTouched ? { category: { type: next.type, name: next.category } } : {}),
          tagNames: body.tags,
        });
        if (walletTouched) assertInstalmentWallet(next.installmentMonths, refs.walletType ?? null);
        if (Object.keys(changes).length === 0 && body.tags === undefined) return toEntryResponse(stored, stored.tags);
        const row = await this.applyChanges(tx, memberId, id, changes);
        if (body.tags === undefined) return toEntryResponse(row, stored.tags);
        await this.replaceTags(tx, memberId, id, refs.tags);
        return toEntryResponse(row, tagNamesInOrder(refs.tags));
      }),
    );
    await this.bonus.afterSave(memberId, saved);
    return saved;
  }

  async delete(memberId: number, id: number): Promise<void> {
    const deleted = await this.deps.db
      .delete(accountEntry)
      .where(and(eq(accountEntry.memberId, memberId), eq(accountEntry.id, id)))
      .returning({ id: accountEntry.id });
    if (deleted.length === 0) throw new NotFoundError('entry');
  }

  private async lockedEntry(tx: DbOrTx, memberId: number, id: number): Promise<EntryWithTags> {
    const [stored] = await tx
      .select(entryWithTagsColumns)
      .from(accountEntry)
      .where(and(eq(accountEntry.memberId, memberId), eq(accountEntry.id, id)))
      .for('update', { of: accountEntry });
    if (!stored) throw new NotFoundError('entry');
    return stored;
  }

  /** Updates the sent columns; a change of the tags alone still marks the entry updated. */
  private async applyChanges(tx: DbOrTx, memberId: number, id: number, changes: EntryChanges): Promise<EntryRow> {
    const [row] = await tx
      .update(accountEntry)
      .set(Object.keys(changes).length > 0 ? changes : { updatedAt: new Date() })
      .where(and(eq(accountEntry.memberId, memberId), eq(accountEntry.id, id)))
      .returning();
    return row!;
  }

  private async addTags(tx: DbOrTx, memberId: number, entryId: number, tags: readonly ResolvedTag[]) {
    if (tags.length === 0) return;
    await tx
      .insert(entryTag)
      .values(tags.map((t) => ({ memberId, entryId, tagId: t.id })))
      .onConflictDoNothing();
  }

  /** Makes the entry's tags exactly `tags`: removes the others, adds the missing ones. */
  private async replaceTags(tx: DbOrTx, memberId: number, entryId: number, tags: readonly ResolvedTag[]) {
    const tagIds = tags.map((t) => t.id);
    const ofEntry = and(eq(entryTag.memberId, memberId), eq(entryTag.entryId, entryId));
    await tx.delete(entryTag).where(tagIds.length > 0 ? and(ofEntry, notInArray(entryTag.tagId, tagIds)) : ofEntry);
    await this.addTags(tx, memberId, entryId, tags);
  }
}
