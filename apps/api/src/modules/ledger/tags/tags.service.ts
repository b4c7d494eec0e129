import type { Tag } from '@nestegg/contract';
import { SORT_ORDER_MAX } from '@nestegg/contract';
import { type Database, type DbOrTx, tag } from '@nestegg/db';
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import { AppError, ConflictError, NotFoundError } from '../../../lib/errors.js';
import { lockMemberTags } from '../../../lib/locks.js';
import { pgErrorCode, UNIQUE_VIOLATION } from '../../../lib/pg-error.js';
import { idsWithOrdinality, intArray, invalidReorder } from '../../../lib/sort-order.js';

/**
 * A member's ledger tags (premium). Entries link tags by id (`entry_tag`), so a rename reaches every
 * entry at once and a delete takes the tag off its entries (the key cascades). Every write takes the
 * member's tag lock first, so sort orders and the reorder's "all tags" check see a settled set.
 */

const columns = { id: tag.id, name: tag.name, sortOrder: tag.sortOrder };

const ownedBy = (memberId: number, id: number): SQL => and(eq(tag.memberId, memberId), eq(tag.id, id))!;

const duplicateName = () => new ConflictError('DUPLICATE_NAME', 'You already have a tag with this name.');

/**
 * `max(sort_order) + 1` of the member's tags, evaluated by the statement that writes it; never past SORT_ORDER_MAX
 * (FI3: new rows share the top place, and the list's id order puts them last).
 */
const nextSortOrder = (memberId: number): SQL =>
  sql`(select least(coalesce(max(${tag.sortOrder})::bigint + 1, 0), ${SORT_ORDER_MAX})::int from ${tag} where ${tag.memberId} = ${memberId})`;

/** A name the member's tags already have (unique key) → 409 `DUPLICATE_NAME`. */
async function mapDuplicateName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof AppError) && pgErrorCode(error) === UNIQUE_VIOLATION) throw duplicateName();
    throw error;
  }
}

/** The list, built once (V5): by sort order. */
const prepareList = (db: Database) =>
  db
    .select(columns)
    .from(tag)
    .where(eq(tag.memberId, sql.placeholder('memberId')))
    .orderBy(asc(tag.sortOrder), asc(tag.id))
    .prepare('tags_list');

/** Ledger tags (`/api/account/tags`), over explicit dependencies. */
export class TagsService {
  private readonly listQuery: ReturnType<typeof prepareList>;

  /** `reader`: where the list is read (a replica when the request's route allows it, decision DB20). */
  constructor(readonly deps: { db: Database; reader: Database }) {
    this.listQuery = prepareList(deps.reader);
  }

  /** The member's tags by sort order. */
  list(memberId: number): Promise<Tag[]> {
    return this.listQuery.execute({ memberId });
  }

  /** Creates a tag, last. */
  create(memberId: number, name: string): Promise<Tag> {
    return this.write(memberId, async (tx) => {
      const [row] = await tx
        .insert(tag)
        .values({ memberId, name, sortOrder: nextSortOrder(memberId) })
        .returning(columns);
      return row!;
    });
  }

  /**
   * Renames a tag. Entries show their tags by name, so the tagged entries are logged as changed too (the
   * delta sync sends them again); a delete needs no such step, the `entry_tag` trigger logs it.
   */
  update(memberId: number, id: number, name: string): Promise<Tag> {
    return this.write(memberId, async (tx) => {
      const [row] = await tx.update(tag).set({ name }).where(ownedBy(memberId, id)).returning(columns);
      if (!row) throw new NotFoundError('tag');
      await tx.execute(sql`
        update account_entry set updated_at = now()
         where member_id = ${memberId}
           and id in (select entry_id from entry_tag where member_id = ${memberId} and tag_id = ${id})`);
      return row;
    });
  }

  /** Deletes a tag; it leaves its entries (the `entry_tag` rows cascade). */
  async delete(memberId: number, id: number): Promise<void> {
    const deleted = await this.deps.db.delete(tag).where(ownedBy(memberId, id)).returning({ id: tag.id });
    if (deleted.length === 0) throw new NotFoundError('tag');
  }

  /**
   * Sets the order of all the member's tags: `ids` must be exactly them, each once (another member's id
   * or an unknown one → `INVALID_REORDER`). Sort orders become 0..n-1 in one statement.
   */
  reorder(memberId: number, ids: number[]): Promise<void> {
    return this.write(memberId, async (tx) => {
      const [counts] = await tx.execute<{ total: number; listed: number }>(sql`
        select count(*)::int as total, (count(*) filter (where id = any(${intArray(ids)})))::int as listed
          from tag where member_id = ${memberId}`);
      if (counts?.total !== ids.length || counts.listed !== ids.length) {
        throw invalidReorder('The ids must list every one of your tags exactly once.');
      }
      await tx.execute(sql`
        update tag set sort_order = o.ord - 1
          from ${idsWithOrdinality(ids)}
         where tag.member_id = ${memberId} and tag.id = o.id`);
    });
  }

  /** Runs a write in a transaction holding the member's tag lock. */
  private write<T>(memberId: number, work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return mapDuplicateName(() =>
      this.deps.db.transaction(async (tx) => {
        await lockMemberTags(tx, memberId);
        return work(tx);
      }),
    );
  }
}
