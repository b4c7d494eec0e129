import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  unique,
} from 'drizzle-orm/pg-core';
import { bytea, createdAt, instant, updatedAt } from './_common';
import { member } from './members';

/** A statement import's life: previewed (adjustable), committed once, undone within its window. */
export const statementImportStatus = pgEnum('statement_import_status', ['PREVIEW', 'COMMITTED', 'UNDONE']);

/** What a statement row becomes (issue 38): the preview's outcome, and after a commit what was done. */
export const statementRowOutcome = pgEnum('statement_row_outcome', [
  'NEW',
  'DUPLICATE',
  'MATCHED',
  'CANCELLATION',
  'INVALID',
  'SKIPPED',
  'EXCLUDED',
]);

/**
 * One uploaded statement file (decision SI1): the file itself while it can still be adjusted (emptied at the
 * commit), how it was read, the member's settings (mapping, date order, wallet, excluded rows, chosen matches)
 * and the counts per outcome. `file_hash` finds the same file uploaded again.
 */
export const statementImport = pgTable(
  'statement_import',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    status: statementImportStatus('status').notNull().default('PREVIEW'),
    fileName: text('file_name').notNull(),
    fileHash: text('file_hash').notNull(),
    fileBytes: bytea('file_bytes'),
    fileSize: integer('file_size').notNull(),
    /** How the file was read: format, encoding, delimiter, sheet, header row, header (the parser's table head). */
    reading: jsonb('reading').notNull(),
    /** The member's choices: mapping, date order, wallet, excluded rows, chosen matches. */
    settings: jsonb('settings').notNull(),
    /** Rows per outcome. */
    counts: jsonb('counts').notNull(),
    rowCount: integer('row_count').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    committedAt: instant('committed_at'),
    undoneAt: instant('undone_at'),
  },
  (t) => [
    primaryKey({ name: 'statement_import_pk', columns: [t.memberId, t.id] }),
    index('statement_import_member_created_idx').on(t.memberId, t.createdAt, t.id),
    index('statement_import_member_hash_idx').on(t.memberId, t.fileHash),
    check('statement_import_committed_dated', sql`${t.status} = 'PREVIEW' or ${t.committedAt} is not null`),
  ],
);

/**
 * Every row of an import with its outcome (paged by `row_index`): the normalised line, the import key, the
 * entry it duplicates, matches, cancels or (after the commit) created, the reason, the proposed category.
 */
export const statementImportRow = pgTable(
  'statement_import_row',
  {
    memberId: integer('member_id').notNull(),
    importId: integer('import_id').notNull(),
    rowIndex: integer('row_index').notNull(),
    line: jsonb('line').notNull(),
    /** Whole local units: the file's amount, or a foreign amount at the statement's or the day's rate. */
    amount: bigint('amount', { mode: 'number' }),
    /** The rate of a foreign row (10 fractional digits), exact as text. */
    exchangeRate: text('exchange_rate'),
    outcome: statementRowOutcome('outcome').notNull(),
    importKey: text('import_key'),
    entryId: integer('entry_id'),
    /** The row of this file a cancellation cancels, when its purchase is in the same file. */
    cancelsRow: integer('cancels_row'),
    reason: text('reason'),
    category: text('category'),
    /** Other entries the row could match (shown, never merged silently). */
    candidates: integer('candidates').array(),
    /** A MATCHED row's entry was pending before the commit confirmed it (an undo makes it pending again). */
    wasPending: boolean('was_pending'),
  },
  (t) => [
    primaryKey({ name: 'statement_import_row_pk', columns: [t.memberId, t.importId, t.rowIndex] }),
    foreignKey({
      name: 'statement_import_row_import_fk',
      columns: [t.memberId, t.importId],
      foreignColumns: [statementImport.memberId, statementImport.id],
    }).onDelete('cascade'),
    index('statement_import_row_outcome_idx').on(t.memberId, t.importId, t.outcome, t.rowIndex),
    // Cancellations an import applied, by key: the same cancellation in a later file is a duplicate.
    index('statement_import_row_member_cancellation_key_idx')
      .on(t.memberId, t.importKey)
      .where(sql`${t.outcome} = 'CANCELLATION'`),
  ],
);

/** A saved mapping (decision SI1), proposed for the next file of the same shape: one per member and shape. */
export const statementImportProfile = pgTable(
  'statement_import_profile',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Format and header cells, hashed: files of one institution's export share it. */
    shapeKey: text('shape_key').notNull(),
    settings: jsonb('settings').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'statement_import_profile_pk', columns: [t.memberId, t.id] }),
    unique('statement_import_profile_shape_uq').on(t.memberId, t.shapeKey),
  ],
);

export type StatementImport = typeof statementImport.$inferSelect;
export type StatementImportRow = typeof statementImportRow.$inferSelect;
export type StatementImportProfile = typeof statementImportProfile.$inferSelect;
