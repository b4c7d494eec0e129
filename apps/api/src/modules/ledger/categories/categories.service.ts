import type {
  Category,
  CategoryImportResult,
  CategoryType,
  CreateCategoryRequest,
  UpdateCategoryRequest,
} from '@nestegg/contract';
import { SORT_ORDER_MAX } from '@nestegg/contract';
import { category, type Database, type DbOrTx } from '@nestegg/db';
import { and, asc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { ConflictError, NotFoundError } from '../../../lib/errors.js';
import { lockMemberCategories } from '../../../lib/locks.js';
import { idsWithOrdinality, intArray } from '../../../lib/sort-order.js';
import { importDefaultCategories } from './category-import.js';
import {
  assertNotOwnParent,
  assertPlacementAllowed,
  assertValidParent,
  assertWholeSiblingGroup,
  categoryHasChildren,
  groupOf,
  mapCategoryWriteErrors,
  placementAfter,
  type TreeNode,
} from './category-tree.js';
import { isAnyCategoryUsed, renameCategoryUses } from './category-uses.js';

/**
 * A member's categories, two levels (the rules in `category-tree.ts`, shared with the default
 * categories). Entries, budgets, recurrings and quick entries name a category, so a rename renames them
 * in the same transaction. Every write takes the member's category lock first: a member's category
 * writes run one after another (sort orders, the tree checks and the import see a settled tree).
 */

const columns = {
  id: category.id,
  name: category.name,
  type: category.type,
  parentId: category.parentId,
  sortOrder: category.sortOrder,
};

const categoryInUse = () =>
  new ConflictError(
    'CATEGORY_IN_USE',
    'Entries, recurrings, quick entries or budgets use this category (or a sub-category): its type cannot change.',
  );

const ownedBy = (memberId: number, id: number): SQL => and(eq(category.memberId, memberId), eq(category.id, id))!;

const siblingsOf = (memberId: number, type: CategoryType, parentId: number | null): SQL =>
  and(
    eq(category.memberId, memberId),
    eq(category.type, type),
    parentId === null ? isNull(category.parentId) : eq(category.parentId, parentId),
  )!;

/**
 * `max(sort_order) + 1` among the siblings, evaluated by the statement that writes it; never past SORT_ORDER_MAX
 * (FI3: new rows share the top place, and the list's id order puts them last).
 */
const nextSortOrder = (memberId: number, type: CategoryType, parentId: number | null): SQL =>
  sql`(select least(coalesce(max(${category.sortOrder})::bigint + 1, 0), ${SORT_ORDER_MAX})::int from ${category} where ${siblingsOf(memberId, type, parentId)})`;

/** The list, built once (V5): each top-level category followed by its sub-categories, by sort order. */
function prepareList(db: Database) {
  const parent = alias(category, 'parent');
  const list = (where: SQL, name: string) =>
    db
      .select(columns)
      .from(category)
      .leftJoin(parent, and(eq(parent.memberId, category.memberId), eq(parent.id, category.parentId)))
      .where(where)
      .orderBy(
        asc(category.type),
        sql`coalesce(${parent.sortOrder}, ${category.sortOrder})`,
        sql`coalesce(${category.parentId}, ${category.id})`,
        sql`${category.parentId} asc nulls first`,
        asc(category.sortOrder),
        asc(category.id),
      )
      .prepare(name);
  const ofMember = eq(category.memberId, sql.placeholder('memberId'));
  return {
    all: list(ofMember, 'categories_list'),
    ofType: list(and(ofMember, eq(category.type, sql.placeholder('type')))!, 'categories_list_of_type'),
  };
}

/** Member categories (`/api/account/categories`), over explicit dependencies. */
export class CategoriesService {
  private readonly listQueries: ReturnType<typeof prepareList>;

  /** `reader`: where the list is read (a replica when the request's route allows it, decision DB20). */
  constructor(readonly deps: { db: Database; reader: Database }) {
    this.listQueries = prepareList(deps.reader);
  }

  /** The member's categories (of one type when given), parents before their children. */
  list(memberId: number, type?: CategoryType): Promise<Category[]> {
    return type ? this.listQueries.ofType.execute({ memberId, type }) : this.listQueries.all.execute({ memberId });
  }

  /** Creates a category, last among its siblings. */
  create(memberId: number, input: CreateCategoryRequest): Promise<Category> {
    const parentId = input.parentId ?? null;
    return this.write(memberId, async (tx) => {
      if (parentId !== null) assertValidParent(await this.parentOf(tx, memberId, parentId), { type: input.type });
      const [row] = await tx
        .insert(category)
        .values({
          memberId,
          name: input.name,
          type: input.type,
          parentId,
          sortOrder: nextSortOrder(memberId, input.type, parentId),
        })
        .returning(columns);
      return row!;
    });
  }

  /**
   * Renames, retypes or moves a category (`parentId: null` → top level). A rename renames its uses. A
   * top-level category with children stays top level; its children follow a type change. A type change
   * is refused while the category or a child is used (the uses have the old type). A moved or retyped
   * category goes last in its new group.
   */
  update(memberId: number, id: number, changes: UpdateCategoryRequest): Promise<Category> {
    assertNotOwnParent(id, changes);
    return this.write(memberId, async (tx) => {
      const current = await this.find(tx, memberId, id);
      if (!current) throw new NotFoundError('category');
      const placement = placementAfter(current, changes);
      const parent = placement.parentId === null ? null : await this.parentOf(tx, memberId, placement.parentId);
      const childNames = current.parentId === null ? await this.childNamesOf(tx, memberId, id) : [];
      assertPlacementAllowed(current, placement, parent, childNames.length);
      const retyped = placement.type !== current.type;
      if (retyped && (await isAnyCategoryUsed(tx, memberId, current.type, [current.name, ...childNames]))) {
        throw categoryInUse();
      }
      const [row] = await tx
        .update(category)
        .set({
          name: placement.name,
          type: placement.type,
          parentId: placement.parentId,
          ...(placement.moved ? { sortOrder: nextSortOrder(memberId, placement.type, placement.parentId) } : {}),
        })
        .where(ownedBy(memberId, id))
        .returning(columns);
      if (!row) throw new NotFoundError('category'); // deleted by a writer that skips the lock (restore)
      if (retyped && childNames.length > 0) {
        await tx
          .update(category)
          .set({ type: placement.type })
          .where(and(eq(category.memberId, memberId), eq(category.parentId, id)));
      }
      if (placement.name !== current.name) {
        await renameCategoryUses(tx, memberId, current.type, current.name, placement.name);
      }
      return row;
    });
  }

  /**
   * Deletes a category; its uses keep the name. The parent key (NO ACTION) refuses a top-level category
   * that still has children, also against a child added by a writer that skips the lock.
   */
  async delete(memberId: number, id: number): Promise<void> {
    const deleted = await mapCategoryWriteErrors(
      () =>
        this.deps.db.transaction(async (tx) => {
          await lockMemberCategories(tx, memberId);
          return tx.delete(category).where(ownedBy(memberId, id)).returning({ id: category.id });
        }),
      categoryHasChildren,
    );
    if (deleted.length === 0) throw new NotFoundError('category');
  }

  /**
   * Sets the order of one sibling group: `ids` must be exactly the member's categories of one
   * `(type, parent)`, each once (another member's id or an unknown one → `INVALID_REORDER`). Sort orders
   * become 0..n-1 in one statement.
   */
  reorder(memberId: number, ids: number[]): Promise<void> {
    return this.write(memberId, async (tx) => {
      const found = await tx
        .select({ id: category.id, type: category.type, parentId: category.parentId })
        .from(category)
        .where(and(eq(category.memberId, memberId), sql`${category.id} = any(${intArray(ids)})`));
      const group = groupOf(found);
      const siblings = group
        ? await tx
            .select({ id: category.id })
            .from(category)
            .where(siblingsOf(memberId, group.type, group.parentId))
        : [];
      assertWholeSiblingGroup(
        ids,
        found,
        siblings.map((row) => row.id),
      );
      await tx.execute(sql`
        update category set sort_order = o.ord - 1, updated_at = now()
          from ${idsWithOrdinality(ids)}
         where category.member_id = ${memberId} and category.id = o.id`);
    });
  }

  /** Copies the default categories, keeping the hierarchy; names the member has are skipped. */
  import(memberId: number): Promise<CategoryImportResult> {
    return this.write(memberId, (tx) => importDefaultCategories(tx, memberId));
  }

  /** Runs a write in a transaction holding the member's category lock, mapping what the database refuses. */
  private write<T>(memberId: number, work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return mapCategoryWriteErrors(() =>
      this.deps.db.transaction(async (tx) => {
        await lockMemberCategories(tx, memberId);
        return work(tx);
      }),
    );
  }

  private async find(tx: DbOrTx, memberId: number, id: number): Promise<(TreeNode & { name: string }) | undefined> {
    const [row] = await tx
      .select({ id: category.id, name: category.name, type: category.type, parentId: category.parentId })
      .from(category)
      .where(ownedBy(memberId, id));
    return row;
  }

  /** The member's category a category is to sit under; another member's id is unknown (404). */
  private async parentOf(tx: DbOrTx, memberId: number, parentId: number): Promise<TreeNode> {
    const parent = await this.find(tx, memberId, parentId);
    if (!parent) throw new NotFoundError('parent category');
    return parent;
  }

  private async childNamesOf(tx: DbOrTx, memberId: number, id: number): Promise<string[]> {
    const rows = await tx
      .select({ name: category.name })
      .from(category)
      .where(and(eq(category.memberId, memberId), eq(category.parentId, id)));
    return rows.map((row) => row.name);
  }
}
