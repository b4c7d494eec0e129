import {
  type BoardCategory,
  type BoardTag,
  boardCategories,
  type CreateTagGroupRequest,
  SORT_ORDER_MAX,
  type TagGroup,
  type UpdateTagGroupRequest,
} from '@nestegg/contract';
import { boardTag, type Database, type DbOrTx, tagCategory } from '@nestegg/db';
import { asc, eq, or, type SQL, sql } from 'drizzle-orm';
import { AppError, ConflictError, NotFoundError } from '../../../lib/errors.js';
import { lockBoardTags } from '../../../lib/locks.js';
import { FOREIGN_KEY_VIOLATION, pgErrorCode, UNIQUE_VIOLATION } from '../../../lib/pg-error.js';
import { idsWithOrdinality, intArray, invalidReorder } from '../../../lib/sort-order.js';

/**
 * Board tag groups (decision DB9): shared, admin-managed groups of tags, each shown on the boards it
 * lists (none listed: every board). Posts keep the tag names they carry, so renaming or deleting a group
 * or a tag changes no post. Every write takes one lock for the whole area first (writes are rare), so
 * sort orders and the reorders' "every id" checks see a settled set.
 */

// Spelled out: drizzle writes a lone table's columns unqualified, which inside this subquery would name
// board_tag's own columns.
const tagsOfGroup = sql<BoardTag[]>`coalesce((
  select json_agg(json_build_object('id', t.id, 'name', t.name, 'sortOrder', t.sort_order) order by t.sort_order, t.id)
    from board_tag t where t.tag_category_id = tag_category.id), '[]'::json)`;

const groupColumns = {
  id: tagCategory.id,
  name: tagCategory.name,
  sortOrder: tagCategory.sortOrder,
  boards: tagCategory.boards,
  tags: tagsOfGroup,
};

const tagColumns = { id: boardTag.id, name: boardTag.name, sortOrder: boardTag.sortOrder };

const groupOrder = [asc(tagCategory.sortOrder), asc(tagCategory.id)];

/** The lists, built once (V5): every group, and the groups shown on one board. */
function prepareLists(db: Database) {
  const shownOn = or(
    sql`${tagCategory.boards} = '{}'::board_category[]`,
    sql`${sql.placeholder('board')}::board_category = any(${tagCategory.boards})`,
  );
  return {
    all: db
      .select(groupColumns)
      .from(tagCategory)
      .orderBy(...groupOrder)
      .prepare('board_tag_groups_all'),
    forBoard: db
      .select(groupColumns)
      .from(tagCategory)
      .where(shownOn)
      .orderBy(...groupOrder)
      .prepare('board_tag_groups_for_board'),
  };
}

/** Boards once each, in the boards' own order, so a group reads back the same whatever order was sent. */
const canonicalBoards = (boards: readonly BoardCategory[]): BoardCategory[] =>
  boardCategories.filter((board) => boards.includes(board));

const duplicateGroupName = () => new ConflictError('DUPLICATE_NAME', 'Another tag group has this name.');
const duplicateTagName = () => new ConflictError('DUPLICATE_NAME', 'The tag group already has a tag with this name.');

/**
 * `max(sort_order) + 1` over `where`, evaluated by the statement that writes it; never past SORT_ORDER_MAX
 * (FI3: new rows share the top place, and the list's id order puts them last).
 */
const nextSortOrder = (column: SQL, table: SQL, where?: SQL): SQL =>
  sql`(select least(coalesce(max(${column})::bigint + 1, 0), ${SORT_ORDER_MAX})::int from ${table}${where ? sql` where ${where}` : sql``})`;

/** Board tag groups (`/api/board/tag-groups`, `/api/board/tags`), over explicit dependencies. */
export class TagGroupsService {
  private readonly lists: ReturnType<typeof prepareLists>;

  /** `reader`: where the lists are read (a replica when the request's route allows it, decision DB20). */
  constructor(private readonly deps: { db: Database; reader: Database }) {
    this.lists = prepareLists(deps.reader);
  }

  /** The groups shown on `board` (with the groups shown everywhere), or every group; by sort order. */
  list(board?: BoardCategory): Promise<TagGroup[]> {
    return board ? this.lists.forBoard.execute({ board }) : this.lists.all.execute();
  }

  /** Creates a group, last. */
  createGroup(input: CreateTagGroupRequest): Promise<TagGroup> {
    return this.write(duplicateGroupName, async (tx) => {
      const [row] = await tx
        .insert(tagCategory)
        .values({
          name: input.name,
          boards: canonicalBoards(input.boards),
          sortOrder: nextSortOrder(sql`sort_order`, sql`tag_category`),
        })
        .returning({ id: tagCategory.id });
      return this.groupById(tx, row!.id);
    });
  }

  /** Renames a group or changes its boards. */
  updateGroup(id: number, changes: UpdateTagGroupRequest): Promise<TagGroup> {
    return this.write(duplicateGroupName, async (tx) => {
      const values = {
        ...(changes.name === undefined ? {} : { name: changes.name }),
        ...(changes.boards === undefined ? {} : { boards: canonicalBoards(changes.boards) }),
      };
      if (Object.keys(values).length === 0) return this.groupById(tx, id);
      const [row] = await tx
        .update(tagCategory)
        .set(values)
        .where(eq(tagCategory.id, id))
        .returning({ id: tagCategory.id });
      if (!row) throw new NotFoundError('tag group');
      return this.groupById(tx, id);
    });
  }

  /** Deletes a group and its tags. */
  async deleteGroup(id: number): Promise<void> {
    const deleted = await this.deps.db
      .delete(tagCategory)
      .where(eq(tagCategory.id, id))
      .returning({ id: tagCategory.id });
    if (deleted.length === 0) throw new NotFoundError('tag group');
  }

  /** Sets the order of every group: `ids` must be exactly them, each once (else `INVALID_REORDER`). */
  reorderGroups(ids: number[]): Promise<void> {
    return this.write(duplicateGroupName, async (tx) => {
      await assertEveryId(tx, sql`tag_category`, undefined, ids, 'The ids must list every tag group exactly once.');
      await tx.execute(sql`
        update tag_category set sort_order = o.ord - 1, updated_at = now()
          from ${idsWithOrdinality(ids)}
         where tag_category.id = o.id`);
    });
  }

  /** Adds a tag to a group, last. */
  createTag(groupId: number, name: string): Promise<BoardTag> {
    return this.write(duplicateTagName, async (tx) => {
      await lockGroup(tx, groupId);
      const [row] = await tx
        .insert(boardTag)
        .values({
          tagCategoryId: groupId,
          name,
          sortOrder: nextSortOrder(sql`sort_order`, sql`board_tag`, sql`tag_category_id = ${groupId}`),
        })
        .returning(tagColumns);
      return row!;
    });
  }

  /** Renames a tag. */
  updateTag(id: number, name: string): Promise<BoardTag> {
    return this.write(duplicateTagName, async (tx) => {
      const [row] = await tx.update(boardTag).set({ name }).where(eq(boardTag.id, id)).returning(tagColumns);
      if (!row) throw new NotFoundError('tag');
      return row;
    });
  }

  /** Deletes a tag. */
  async deleteTag(id: number): Promise<void> {
    const deleted = await this.deps.db.delete(boardTag).where(eq(boardTag.id, id)).returning({ id: boardTag.id });
    if (deleted.length === 0) throw new NotFoundError('tag');
  }

  /**
   * Sets the order of a group's tags: `ids` must be exactly its tags, each once (a tag of another group or
   * an unknown id → `INVALID_REORDER`).
   */
  reorderTags(groupId: number, ids: number[]): Promise<void> {
    return this.write(duplicateTagName, async (tx) => {
      await lockGroup(tx, groupId);
      const ofGroup = sql`tag_category_id = ${groupId}`;
      await assertEveryId(tx, sql`board_tag`, ofGroup, ids, 'The ids must list every tag of the group exactly once.');
      await tx.execute(sql`
        update board_tag set sort_order = o.ord - 1
          from ${idsWithOrdinality(ids)}
         where board_tag.tag_category_id = ${groupId} and board_tag.id = o.id`);
    });
  }

  private async groupById(tx: DbOrTx, id: number): Promise<TagGroup> {
    const [group] = await tx.select(groupColumns).from(tagCategory).where(eq(tagCategory.id, id));
    if (!group) throw new NotFoundError('tag group');
    return group;
  }

  /**
   * Runs a write in a transaction holding the area's lock; a unique violation (a name taken) becomes
   * `onDuplicate`, a group deleted meanwhile (foreign key) 404.
   */
  private async write<T>(onDuplicate: () => AppError, work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    try {
      return await this.deps.db.transaction(async (tx) => {
        await lockBoardTags(tx);
        return work(tx);
      });
    } catch (error) {
      if (error instanceof AppError) throw error;
      const code = pgErrorCode(error);
      if (code === UNIQUE_VIOLATION) throw onDuplicate();
      if (code === FOREIGN_KEY_VIOLATION) throw new NotFoundError('tag group');
      throw error;
    }
  }
}

/** Locks a group against its deletion for the rest of the transaction; 404 when there is none. */
async function lockGroup(tx: DbOrTx, groupId: number): Promise<void> {
  const [group] = await tx
    .select({ id: tagCategory.id })
    .from(tagCategory)
    .where(eq(tagCategory.id, groupId))
    .for('key share');
  if (!group) throw new NotFoundError('tag group');
}

/** Throws `INVALID_REORDER` unless `ids` are exactly the rows of `table` matching `where`. */
async function assertEveryId(
  tx: DbOrTx,
  table: SQL,
  where: SQL | undefined,
  ids: number[],
  message: string,
): Promise<void> {
  const [counts] = await tx.execute<{ total: number; listed: number }>(sql`
    select count(*)::int as total, (count(*) filter (where id = any(${intArray(ids)})))::int as listed
      from ${table}${where ? sql` where ${where}` : sql``}`);
  if (counts?.total !== ids.length || counts.listed !== ids.length) throw invalidReorder(message);
}
