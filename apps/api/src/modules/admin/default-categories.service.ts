import type {
  CategoryType,
  CreateDefaultCategoryRequest,
  DefaultCategory,
  UpdateDefaultCategoryRequest,
} from '@nestegg/contract';
import { type Database, type DbOrTx, defaultCategory } from '@nestegg/db';
import { and, asc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { AppError, BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { FOREIGN_KEY_VIOLATION, pgErrorCode, UNIQUE_VIOLATION } from '../../lib/pg-error.js';

/**
 * Default categories (shared by all members), two levels: a sub-category sits under a top-level
 * category of the same type. Siblings are the categories of one `(type, parentId)`: names are unique
 * and `sortOrder` orders them.
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

/** `max(sort_order) + 1` among the siblings, evaluated by the statement that writes it. */
const nextSortOrder = (type: CategoryType, parentId: number | null): SQL =>
  sql`(select coalesce(max(${defaultCategory.sortOrder}) + 1, 0) from ${defaultCategory} where ${siblingsOf(type, parentId)})`;

const duplicateName = () =>
  new ConflictError('DUPLICATE_CATEGORY_NAME', 'A category of this type already has this name.');
const hasChildren = () =>
  new ConflictError('CATEGORY_HAS_CHILDREN', 'This category has sub-categories: move or delete them first.');
const tooDeep = () =>
  new BadRequestError('CATEGORY_TOO_DEEP', 'A sub-category can only sit under a top-level category.');
const typeMismatch = () =>
  new BadRequestError('CATEGORY_TYPE_MISMATCH', 'A sub-category must have the type of its parent.');

/** Unique violations (a name its type already has, at either level) → 409; a parent deleted meanwhile → 404. */
async function mapWriteErrors<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = pgErrorCode(error);
    if (code === UNIQUE_VIOLATION) throw duplicateName();
    if (code === FOREIGN_KEY_VIOLATION) throw new NotFoundError('parent category');
    throw error;
  }
}

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
  if (parent.parentId !== null) throw tooDeep();
  if (parent.type !== type) throw typeMismatch();
}

/** Creates a category, last among its siblings. */
async function createDefaultCategory(db: Database, input: CreateDefaultCategoryRequest): Promise<Row> {
  const parentId = input.parentId ?? null;
  return mapWriteErrors(() =>
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
  return mapWriteErrors(() =>
    db.transaction(async (tx) => {
      const targetParentId = input.parentId;
      if (targetParentId === id) throw new BadRequestError('INVALID_PARENT', 'A category cannot sit under itself.');
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

      const parentId = targetParentId === undefined ? current.parentId : targetParentId;
      const type = input.type ?? current.type;
      const name = input.name ?? current.name;

      if (parentId !== null) {
        const parent = locked.find((row) => row.id === parentId) ?? (await lockedParent(tx, parentId));
        if (parent.parentId !== null) throw tooDeep();
        if (parent.type !== type) throw typeMismatch();
      }
      const children = current.parentId === null ? await childCount(tx, id) : 0;
      if (parentId !== null && children > 0) throw hasChildren();

      const moved = parentId !== current.parentId || type !== current.type;
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
  let deleted: { id: number }[];
  try {
    deleted = await db.delete(defaultCategory).where(eq(defaultCategory.id, id)).returning({ id: defaultCategory.id });
  } catch (error) {
    if (pgErrorCode(error) === FOREIGN_KEY_VIOLATION) throw hasChildren();
    throw error;
  }
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
    if (rows.length !== ids.length) throw new NotFoundError('category');
    const [first] = rows;
    if (!rows.every((row) => row.type === first!.type && row.parentId === first!.parentId)) {
      throw new BadRequestError('INVALID_REORDER', 'The ids must all be siblings (same parent and type).');
    }
    const siblings = await tx
      .select({ id: defaultCategory.id })
      .from(defaultCategory)
      .where(siblingsOf(first!.type, first!.parentId))
      .orderBy(asc(defaultCategory.id))
      .for('update');
    const wanted = new Set(ids);
    if (siblings.length !== ids.length || !siblings.every((row) => wanted.has(row.id))) {
      throw new BadRequestError('INVALID_REORDER', 'The ids must list every sibling exactly once.');
    }
    const idArray = sql`array[${sql.join(
      ids.map((value) => sql`${value}`),
      sql`, `,
    )}]::int[]`;
    await tx.execute(sql`
      update ${defaultCategory} set sort_order = o.ord - 1, updated_at = now()
      from unnest(${idArray}) with ordinality as o(id, ord)
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
