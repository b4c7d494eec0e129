import type {
  CategoryType,
  CreateDefaultCategoryRequest,
  DefaultCategory,
  UpdateDefaultCategoryRequest,
} from '@nestegg/contract';
import { SORT_ORDER_MAX } from '@nestegg/contract';
import { type Database, type DbOrTx, defaultCategory } from '@nestegg/db';
import { and, asc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { NotFoundError } from '../../../lib/errors.js';
import { idsWithOrdinality } from '../../../lib/sort-order.js';
import {
  assertNotOwnParent,
  assertPlacementAllowed,
  assertValidParent,
  assertWholeSiblingGroup,
  categoryHasChildren,
  groupOf,
  mapCategoryWriteErrors,
  placementAfter,
} from '../../ledger/categories/index.js';

/**
 * Default categories (shared by all members), under the two-level rules of member categories
 * (`categories/category-tree.ts`). Siblings are the categories of one `(type, parentId)`, ordered by
 * `sortOrder`; a name is unique per type across both levels.
 */

const columns = {
  id: defaultCategory.id,
  name: defaultCategory.name,
  type: defaultCategory.type,
  parentId: defaultCategory.parentId,
  sortOrder: defaultCategory.sortOrder,
};

type Row = DefaultCategory;

const siblingsOf = (type: CategoryType, parentId: number | null): SQL =>
  and(
    eq(defaultCategory.type, type),
    parentId === null ? isNull(defaultCategory.parentId) : eq(defaultCategory.parentId, parentId),
  )!;

/**
 * `max(sort_order) + 1` among the siblings, evaluated by the statement that writes it; never past SORT_ORDER_MAX
 * (FI3: new rows share the top place, and the list's id order puts them last).
 */
const nextSortOrder = (type: CategoryType, parentId: number | null): SQL =>
  sql`(select least(coalesce(max(${defaultCategory.sortOrder})::bigint + 1, 0), ${SORT_ORDER_MAX})::int from ${defaultCategory} where ${siblingsOf(type, parentId)})`;

/** All default categories: top level first, then by parent, type and order. */
async function listDefaultCategories(db: DbOrTx): Promise<Row[]> {
  return db
    .select(columns)
    .from(defaultCategory)
    .orderBy(
      sql`${defaultCategory.parentId} asc nulls first`,
      asc(defaultCategory.type),
      asc(defaultCategory.sortOrder),
      asc(defaultCategory.id),
    );
}

/**
 * Locks the parent a category is about to be placed under and checks it may take children: it exists,
 * is top level and has the same type. The lock orders this against a concurrent move of the parent.
 */
async function lockParent(tx: DbOrTx, parentId: number, type: CategoryType): Promise<void> {
  const [parent] = await tx
    .select({ parentId: defaultCategory.parentId, type: defaultCategory.type })
    .from(defaultCategory)
    .where(eq(defaultCategory.id, parentId))
    .for('update');
  if (!parent) throw new NotFoundError('parent category');
  assertValidParent({ ...parent, id: parentId }, { type });
}

/** Creates a category, last among its siblings. */
async function createDefaultCategory(db: Database, input: CreateDefaultCategoryRequest): Promise<Row> {
  const parentId = input.parentId ?? null;
  return mapCategoryWriteErrors(() =>
    db.transaction(async (tx) => {
      if (parentId !== null) await lockParent(tx, parentId, input.type);
      const [row] = await tx
        .insert(defaultCategory)
        .values({ name: input.name, type: input.type, parentId, sortOrder: nextSortOrder(input.type, parentId) })
        .returning(columns);
      return row!;
    }),
  );
}

/**
 * Renames a category, changes its type, or moves it between levels (`parentId: null` → top level, an id →
 * under that top-level category; absent → where it is). A top-level category with children cannot become
 * a sub-category; when its type changes, its children follow. A moved category goes last in its new place.
 */
async function updateDefaultCategory(db: Database, id: number, input: UpdateDefaultCategoryRequest): Promise<Row> {
  assertNotOwnParent(id, input);
  return mapCategoryWriteErrors(() =>
    db.transaction(async (tx) => {
      const targetParentId = input.parentId;
      // Lock the category and the new parent together, in id order, so crossing moves cannot deadlock.
      const lockIds = targetParentId ? [id, targetParentId] : [id];
      const locked = await tx
        .select(columns)
        .from(defaultCategory)
        .where(inArray(defaultCategory.id, lockIds))
        .orderBy(asc(defaultCategory.id))
        .for('update');
      const current = locked.find((row) => row.id === id);
      if (!current) throw new NotFoundError('category');

      const placement = placementAfter(current, input);
      const { name, type, parentId, moved } = placement;
      const parent =
        parentId === null ? null : (locked.find((row) => row.id === parentId) ?? (await lockedParent(tx, parentId)));
      const children = current.parentId === null ? await childCount(tx, id) : 0;
      assertPlacementAllowed(current, placement, parent, children);

      const [row] = await tx
        .update(defaultCategory)
        .set({ name, type, parentId, ...(moved ? { sortOrder: nextSortOrder(type, parentId) } : {}) })
        .where(eq(defaultCategory.id, id))
        .returning(columns);
      if (children > 0 && type !== current.type) {
        await tx.update(defaultCategory).set({ type }).where(eq(defaultCategory.parentId, id));
      }
      return row!;
    }),
  );
}

/** The parent of an unchanged `parentId` (not locked above): lock it now. */
async function lockedParent(tx: DbOrTx, parentId: number): Promise<Row> {
  const [parent] = await tx.select(columns).from(defaultCategory).where(eq(defaultCategory.id, parentId)).for('update');
  if (!parent) throw new NotFoundError('parent category');
  return parent;
}

async function childCount(tx: DbOrTx, id: number): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(defaultCategory)
    .where(eq(defaultCategory.parentId, id));
  return row?.n ?? 0;
}

/**
 * Deletes a category. One statement: the self-reference (NO ACTION) refuses a parent that still has
 * children, also against a child added concurrently.
 */
async function deleteDefaultCategory(db: DbOrTx, id: number): Promise<void> {
  const deleted = await mapCategoryWriteErrors(
    () => db.delete(defaultCategory).where(eq(defaultCategory.id, id)).returning({ id: defaultCategory.id }),
    categoryHasChildren,
  );
  if (deleted.length === 0) throw new NotFoundError('category');
}

/**
 * Sets the order of one group of siblings: `ids` must be exactly the categories of one `(type, parent)`,
 * each once. Sort orders become 0..n-1 in one statement.
 */
async function reorderDefaultCategories(db: Database, ids: number[]): Promise<void> {
  await db.transaction(async (tx) => {
    const rows = await tx
      .select({ id: defaultCategory.id, type: defaultCategory.type, parentId: defaultCategory.parentId })
      .from(defaultCategory)
      .where(inArray(defaultCategory.id, ids));
    const group = groupOf(rows);
    const siblings = group
      ? await tx
          .select({ id: defaultCategory.id })
          .from(defaultCategory)
          .where(siblingsOf(group.type, group.parentId))
          .orderBy(asc(defaultCategory.id))
          .for('update')
      : [];
    assertWholeSiblingGroup(
      ids,
      rows,
      siblings.map((row) => row.id),
      () => new NotFoundError('category'),
    );
    await tx.execute(sql`
      update ${defaultCategory} set sort_order = o.ord - 1, updated_at = now()
      from ${idsWithOrdinality(ids)}
      where ${defaultCategory.id} = o.id`);
  });
}

/** The admin area's default categories (the ones members import), over explicit dependencies. */
export class DefaultCategoryService {
  constructor(private readonly deps: { db: Database }) {}

  list(): Promise<Row[]> {
    return listDefaultCategories(this.deps.db);
  }

  create(input: CreateDefaultCategoryRequest): Promise<Row> {
    return createDefaultCategory(this.deps.db, input);
  }

  update(id: number, changes: UpdateDefaultCategoryRequest): Promise<Row> {
    return updateDefaultCategory(this.deps.db, id, changes);
  }

  delete(id: number): Promise<void> {
    return deleteDefaultCategory(this.deps.db, id);
  }

  reorder(ids: number[]): Promise<void> {
    return reorderDefaultCategories(this.deps.db, ids);
  }
}
