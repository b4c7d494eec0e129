import type { CategoryType } from '@nestegg/contract';
import { AppError, BadRequestError, ConflictError, NotFoundError } from '../../../lib/errors.js';
import { FOREIGN_KEY_VIOLATION, pgErrorCode, UNIQUE_VIOLATION } from '../../../lib/pg-error.js';
import { invalidReorder } from '../../../lib/sort-order.js';

/**
 * The two-level category rules, shared by a member's categories and the admin area's default
 * categories. A category is top level (`parentId` null) or sits under a top-level category of the same
 * type. The siblings of one `(type, parentId)` are ordered by `sortOrder`. A name is unique per type
 * across both levels: the unique keys of both tables hold that, these rules map their violation.
 */

/** A category as the tree rules see it. */
export interface TreeNode {
  id: number;
  type: CategoryType;
  parentId: number | null;
}

/** What an update asks for; an absent field keeps its value, `parentId: null` means top level. */
export interface TreeChanges {
  name?: string;
  type?: CategoryType;
  parentId?: number | null;
}

/** Where an update puts a category. */
export interface Placement {
  name: string;
  type: CategoryType;
  parentId: number | null;
  /** It changes sibling group (parent or type): it goes last in its new group. */
  moved: boolean;
}

export const duplicateCategoryName = (detail = 'A category of this type already has this name.'): ConflictError =>
  new ConflictError('DUPLICATE_CATEGORY_NAME', detail);
export const categoryHasChildren = (): ConflictError =>
  new ConflictError('CATEGORY_HAS_CHILDREN', 'This category has sub-categories: move or delete them first.');
const invalidParent = (): BadRequestError =>
  new BadRequestError('INVALID_PARENT', 'A category cannot sit under itself.');

/** Throws unless a category of `child.type` (`child.id` when it exists) may sit under `parent`. */
export function assertValidParent(parent: TreeNode, child: { id?: number; type: CategoryType }): void {
  if (parent.id === child.id) throw invalidParent();
  if (parent.parentId !== null) {
    throw new BadRequestError('CATEGORY_TOO_DEEP', 'A sub-category can only sit under a top-level category.');
  }
  if (parent.type !== child.type) {
    throw new BadRequestError('CATEGORY_TYPE_MISMATCH', 'A sub-category must have the type of its parent.');
  }
}

/** Throws `INVALID_PARENT` when an update names the category itself as its parent (before any lookup). */
export function assertNotOwnParent(id: number, changes: TreeChanges): void {
  if (changes.parentId === id) throw invalidParent();
}

/** The category's place after `changes`. */
export function placementAfter(current: TreeNode & { name: string }, changes: TreeChanges): Placement {
  const parentId = changes.parentId === undefined ? current.parentId : changes.parentId;
  const type = changes.type ?? current.type;
  return {
    name: changes.name ?? current.name,
    type,
    parentId,
    moved: parentId !== current.parentId || type !== current.type,
  };
}

/**
 * Throws the rule a placement breaks: its parent (loaded by the caller; null for top level) must accept
 * it, and a category with children stays top level (two levels only).
 */
export function assertPlacementAllowed(
  current: TreeNode,
  placement: Placement,
  parent: TreeNode | null,
  childCount: number,
): void {
  if (parent) assertValidParent(parent, { id: current.id, type: placement.type });
  if (placement.parentId !== null && childCount > 0) throw categoryHasChildren();
}

/**
 * The one sibling group `ids` may reorder: `found` are the rows of `ids`, `siblingIds` (read for the
 * group of the first row) every id of that group. Throws `INVALID_REORDER` unless `ids` are exactly all
 * the siblings of one group, each once; missing ids are the caller's call (`onMissing`).
 */
export function assertWholeSiblingGroup(
  ids: number[],
  found: TreeNode[],
  siblingIds: number[],
  onMissing: () => AppError = () => invalidReorder('Every id must be one of your categories.'),
): void {
  if (found.length !== ids.length) throw onMissing();
  const [first] = found;
  if (!found.every((row) => row.type === first!.type && row.parentId === first!.parentId)) {
    throw invalidReorder('The ids must all be siblings (same parent and type).');
  }
  const wanted = new Set(ids);
  if (siblingIds.length !== ids.length || !siblingIds.every((id) => wanted.has(id))) {
    throw invalidReorder('The ids must list every sibling exactly once.');
  }
}

/** The first row's group, the one whose siblings `assertWholeSiblingGroup` compares with. */
export const groupOf = (found: TreeNode[]): Pick<TreeNode, 'type' | 'parentId'> | null =>
  found[0] ? { type: found[0].type, parentId: found[0].parentId } : null;

/**
 * Runs a category write and maps what the database refuses: a name its type already has (unique
 * violation) → 409; a parent gone meanwhile, or kept by its children (foreign key) → `onForeignKey`.
 */
export async function mapCategoryWriteErrors<T>(
  write: () => Promise<T>,
  onForeignKey: () => AppError = () => new NotFoundError('parent category'),
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = pgErrorCode(error);
    if (code === UNIQUE_VIOLATION) throw duplicateCategoryName();
    if (code === FOREIGN_KEY_VIOLATION) throw onForeignKey();
    throw error;
  }
}
