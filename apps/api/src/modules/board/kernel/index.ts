export type { AuthorRow } from './author.view.js';
export { authorColumns, toAuthor } from './author.view.js';
export { assertOffsetAllowed, isHot, pageOf } from './board-sql.js';
export type { LockedTarget } from './board-target.js';
export { lockReadableTarget, lockTargetRow, targetTable } from './board-target.js';
export { recordContentDeletion, recordPostDeletion } from './content-deletion.js';
export type { Viewer, Writer } from './viewer.js';
export { viewerOf, writerOf } from './viewer.js';
