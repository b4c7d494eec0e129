/**
 * Statement import (issue 38, decisions SI1–SI8): a card or bank statement file becomes a preview of every row
 * with its outcome; the member adjusts it, commits it once, and may undo it for a while.
 */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CurrencySchema,
  CursorSchema,
  coercedInteger,
  DateSchema,
  FileFieldSchema,
  IdParamSchema,
  IdSchema,
  InstantSchema,
  LedgerTypeSchema,
  listOf,
  MAX_PAGE_SIZE,
  MoneySchema,
  meta,
  nameSchema,
  problems,
  routerOptions,
  uniqueArray,
  withCommonProblems,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { strictInput } from '../strict-input.js';
import { text } from '../text.js';

const c = initContract();

/** Upload limit of a statement file (multipart). */
export const STATEMENT_MAX_BYTES = 10 * 1024 * 1024;
/** Rows a statement file may hold. */
export const STATEMENT_MAX_ROWS = 50_000;

export const StatementFormatSchema = z.enum(['CSV', 'XLSX', 'OFX', 'HTML']);
export const StatementEncodingSchema = z.enum(['UTF-8', 'UTF-8-BOM', 'UTF-16LE', 'UTF-16BE', 'CP949']);
export const DateOrderSchema = z
  .enum(['YMD', 'DMY', 'MDY'])
  .describe('How a date like 03/04/2026 is read: year-month-day, day-month-year or month-day-year');
export const SignConventionSchema = z
  .enum(['NEGATIVE_IS_EXPENSE', 'POSITIVE_IS_EXPENSE'])
  .describe('For a single amount column: which sign a spending has');
export type DateOrder = z.infer<typeof DateOrderSchema>;
export const ImportStatusSchema = z.enum(['PREVIEW', 'COMMITTED', 'UNDONE']);
export const ImportOutcomeSchema = z
  .enum(['NEW', 'DUPLICATE', 'MATCHED', 'CANCELLATION', 'INVALID', 'SKIPPED', 'EXCLUDED'])
  .describe(
    'NEW: becomes an entry. DUPLICATE: imported before (`entryId`). MATCHED: confirms the existing entry `entryId` ' +
      'instead of adding one. CANCELLATION: removes the purchase it cancels (`entryId`, or `cancelsRow` in this file). ' +
      'INVALID: cannot be read (`reason`). SKIPPED: not a transaction (a total, a blank or repeated header row). ' +
      'EXCLUDED: left out by the member.',
  );
export type ImportOutcome = z.infer<typeof ImportOutcomeSchema>;

const column = z.number().int().min(0).max(255).nullable();

/** Which column holds what: indexes into `header`, null when the file has no such column. */
export const ColumnMappingSchema = z
  .object({
    date: z.number().int().min(0).max(255),
    time: column,
    amount: column.describe('One amount column (with `sign`), or null with `withdrawal` and `deposit`'),
    sign: SignConventionSchema.nullable(),
    withdrawal: column.describe('출금 / 지출 column'),
    deposit: column.describe('입금 / 수입 column'),
    description: z.number().int().min(0).max(255).describe('Merchant, 적요 or 내용'),
    transactionId: column.describe('Approval or transaction number'),
    installments: column,
    currency: column.describe('Currency of a foreign amount'),
    foreignAmount: column,
    card: column.describe('Card or account number as the file writes it'),
    balance: column,
    status: column.describe('A column that marks cancellations (취소)'),
  })
  .describe('Column indexes into `header`');
export type ColumnMapping = z.infer<typeof ColumnMappingSchema>;

export const ImportCountsSchema = z.object({
  NEW: z.number().int().min(0),
  DUPLICATE: z.number().int().min(0),
  MATCHED: z.number().int().min(0),
  CANCELLATION: z.number().int().min(0),
  INVALID: z.number().int().min(0),
  SKIPPED: z.number().int().min(0),
  EXCLUDED: z.number().int().min(0),
});
export type ImportCounts = z.infer<typeof ImportCountsSchema>;

export const ImportProfileRefSchema = z.object({ id: IdSchema, name: text() });

export const ImportSchema = z.object({
  id: IdSchema,
  status: ImportStatusSchema,
  fileName: text(),
  format: StatementFormatSchema,
  encoding: StatementEncodingSchema.nullable().describe('null for XLSX'),
  delimiter: text().nullable().describe('CSV only'),
  sheet: text().nullable().describe('XLSX only: the sheet read'),
  headerRow: z.number().int().min(0).describe('0-based row of the header in the file'),
  header: z.array(text()),
  mapping: ColumnMappingSchema,
  dateOrder: DateOrderSchema,
  currency: CurrencySchema.describe('The currency of amounts the file names none for'),
  dateOrderCandidates: z
    .array(DateOrderSchema)
    .describe('Date orders the file could be read in; more than one when the data cannot tell (the member chooses)'),
  accountId: IdSchema.nullable().describe('The wallet the rows go to'),
  profile: ImportProfileRefSchema.nullable().describe('The saved mapping this preview started from'),
  counts: ImportCountsSchema,
  rowCount: z.number().int().min(0),
  createdAt: InstantSchema,
  committedAt: InstantSchema.nullable(),
  undoneAt: InstantSchema.nullable(),
  undoableUntil: InstantSchema.nullable().describe('Until when a committed import can be undone'),
});
export type Import = z.infer<typeof ImportSchema>;

export const ImportRowSchema = z.object({
  index: z.number().int().min(0).describe('Position among the data rows (the cursor of the row list)'),
  rowNumber: z.number().int().min(1).describe('1-based line or row number in the file'),
  outcome: ImportOutcomeSchema,
  date: DateSchema.nullable(),
  time: text().nullable(),
  type: LedgerTypeSchema.nullable(),
  amount: MoneySchema.nullable().describe('Whole local-currency units'),
  currency: CurrencySchema.nullable().describe('Currency of a foreign row'),
  originalAmount: text().nullable().describe('Amount in that currency, exact'),
  description: text().nullable(),
  transactionId: text().nullable(),
  installmentMonths: z.number().int().min(2).max(24).nullable(),
  cancellation: z.boolean(),
  category: text().nullable().describe('The category the entry will get (learned from the member’s entries)'),
  entryId: IdSchema.nullable().describe('The entry it duplicates, matches, cancels, or (after the commit) created'),
  cancelsRow: z.number().int().min(0).nullable().describe('The row of this file a cancellation cancels'),
  candidates: z.array(IdSchema).describe('Entries the row could also match: shown, never merged without a choice'),
  reason: text().nullable().describe('Why the outcome (a duplicate’s key, a match’s likeness, an invalid value)'),
});
export type ImportRow = z.infer<typeof ImportRowSchema>;

export const ImportRowPageSchema = z.object({
  items: z.array(ImportRowSchema),
  nextCursor: CursorSchema.nullable().describe('Pass as `cursor` for the next page; null on the last page'),
});

export const ImportRowQuerySchema = z.object({
  outcome: ImportOutcomeSchema.optional(),
  cursor: CursorSchema.optional(),
  size: coercedInteger(1, MAX_PAGE_SIZE * 5).default(100),
});

export const ImportListQuerySchema = z.object({
  cursor: CursorSchema.optional(),
  size: coercedInteger(1, MAX_PAGE_SIZE).default(20),
});

export const ImportPageSchema = z.object({ items: z.array(ImportSchema), nextCursor: CursorSchema.nullable() });

const RowIndexSchema = z.number().int().min(0).max(99_999);

export const AdjustImportRequestSchema = z.object({
  mapping: ColumnMappingSchema.optional(),
  dateOrder: DateOrderSchema.optional(),
  currency: CurrencySchema.optional().describe(
    'The currency of amounts in a file that names none (a foreign bank’s CSV without a currency column); default KRW',
  ),
  accountId: IdSchema.nullable().optional().describe('The wallet the rows go to; null for none'),
  exclude: uniqueArray(z.array(RowIndexSchema).max(50_000), 'rows must be unique')
    .optional()
    .describe('Rows to leave out (added to those already left out)'),
  include: uniqueArray(z.array(RowIndexSchema).max(50_000), 'rows must be unique')
    .optional()
    .describe('Rows left out before to take back'),
  matches: z
    .array(
      z.object({
        row: RowIndexSchema,
        entryId: IdSchema.nullable().describe('The entry this row confirms, or null: a new entry'),
      }),
    )
    .max(50_000)
    .optional()
    .describe('The member’s choice where a row could match several entries (or none)'),
  saveProfile: z
    .object({ name: nameSchema(50) })
    .optional()
    .describe('Save the mapping, date order and wallet for the next file of this shape'),
});
export type AdjustImportRequest = z.infer<typeof AdjustImportRequestSchema>;

export const UploadStatementRequestSchema = z.object({
  file: FileFieldSchema.describe('The statement: CSV/TSV, XLSX, OFX/QFX or an HTML-table “.xls”, at most 10 MB'),
});

export const ImportUndoResultSchema = z.object({
  import: ImportSchema,
  removed: z.array(IdSchema).describe('Entries the import created, now deleted'),
  kept: z
    .array(z.object({ entryId: IdSchema, reason: text() }))
    .describe('Entries the import created or confirmed that were edited since, left as they are'),
  reverted: z.array(IdSchema).describe('Entries the import confirmed, pending again'),
});
export type ImportUndoResult = z.infer<typeof ImportUndoResultSchema>;

export const ImportProfileSchema = z.object({
  id: IdSchema,
  name: text(),
  format: StatementFormatSchema,
  header: z.array(text()),
  createdAt: InstantSchema,
  updatedAt: InstantSchema,
});
export type ImportProfile = z.infer<typeof ImportProfileSchema>;
export const ImportProfileListSchema = listOf(ImportProfileSchema);

const IMPORT_DESCRIPTION =
  'The file is read off the event loop: its format, encoding and delimiter are detected, the header row found, ' +
  'the columns and date order proposed (or taken from a saved profile of the same shape), and every row given ' +
  'its outcome. 400 `STATEMENT_UNSUPPORTED` for a file that is not a statement the api reads (a legacy binary ' +
  '`.xls`: save it as `.xlsx` or CSV), `STATEMENT_UNREADABLE` for one that cannot be read (encoding, empty, no ' +
  'header, an XLSX that would expand past its limit), `STATEMENT_TOO_MANY_ROWS` past 50,000 rows; 413 past 10 MB; ' +
  '429 `IMPORT_QUOTA_EXCEEDED` past the day’s uploads (with `Retry-After`).';

export const importsContract = withCommonProblems(
  c.router(
    {
      upload: {
        method: 'POST',
        path: '/api/account/imports',
        summary: 'Upload a card or bank statement: the answer is the preview of every row',
        description: IMPORT_DESCRIPTION,
        contentType: 'multipart/form-data',
        body: UploadStatementRequestSchema,
        responses: {
          201: ImportSchema,
          ...problems(
            'STATEMENT_UNSUPPORTED',
            'STATEMENT_UNREADABLE',
            'STATEMENT_TOO_MANY_ROWS',
            'IMPORT_QUOTA_EXCEEDED',
            'RATE_LIMITED',
          ),
        },
        metadata: meta('login'),
      },
      list: {
        method: 'GET',
        path: '/api/account/imports',
        summary: 'The member’s imports, newest first',
        query: ImportListQuerySchema,
        responses: { 200: ImportPageSchema, ...problems('CURSOR_INVALID') },
        metadata: meta('login'),
      },
      get: {
        method: 'GET',
        path: '/api/account/imports/:id',
        summary: 'One import: how the file was read, the mapping, the counts per outcome',
        pathParams: IdParamSchema,
        responses: { 200: ImportSchema, ...problems('NOT_FOUND') },
        metadata: meta('login'),
      },
      rows: {
        method: 'GET',
        path: '/api/account/imports/:id/rows',
        summary: 'The rows of an import with their outcomes, in file order',
        pathParams: IdParamSchema,
        query: ImportRowQuerySchema,
        responses: { 200: ImportRowPageSchema, ...problems('NOT_FOUND', 'CURSOR_INVALID') },
        metadata: meta('login'),
      },
      adjust: {
        method: 'PUT',
        path: '/api/account/imports/:id',
        summary: 'Change the mapping, date order, wallet, rows left out or chosen matches; the preview is recomputed',
        description:
          '409 `IMPORT_COMMITTED` once committed or undone. A `saveProfile` keeps the mapping for the next file of ' +
          'the same shape (one profile per shape: saving again replaces it). A wallet that is not the member’s is 404.',
        pathParams: IdParamSchema,
        body: AdjustImportRequestSchema,
        responses: { 200: ImportSchema, ...problems('NOT_FOUND', 'IMPORT_COMMITTED') },
        metadata: meta('login'),
      },
      commit: {
        method: 'POST',
        path: '/api/account/imports/:id/commit',
        summary: 'Create the NEW rows, confirm the MATCHED ones and apply the cancellations, in one transaction',
        description:
          'Committing again answers the committed import and changes nothing; an undone import is 409 ' +
          '`IMPORT_COMMITTED`. Rows whose outcome changed since the preview (an entry made meanwhile) are ' +
          'recomputed in the transaction: a row is never imported twice.',
        pathParams: IdParamSchema,
        body: c.noBody(),
        responses: { 200: ImportSchema, ...problems('NOT_FOUND', 'IMPORT_COMMITTED') },
        metadata: meta('login'),
      },
      undo: {
        method: 'POST',
        path: '/api/account/imports/:id/undo',
        summary: 'Undo a committed import within its window',
        description:
          'Deletes the entries it created and returns the entries it confirmed to pending, except those edited ' +
          'since (kept, with the reason). 409 `IMPORT_NOT_COMMITTED` for a preview or an undone import, ' +
          '`IMPORT_UNDO_EXPIRED` past `undoableUntil`.',
        pathParams: IdParamSchema,
        body: c.noBody(),
        responses: {
          200: ImportUndoResultSchema,
          ...problems('NOT_FOUND', 'IMPORT_NOT_COMMITTED', 'IMPORT_UNDO_EXPIRED'),
        },
        metadata: meta('login'),
      },
      discard: {
        method: 'DELETE',
        path: '/api/account/imports/:id',
        summary: 'Discard a preview (a committed import stays: undo it instead)',
        pathParams: IdParamSchema,
        body: c.noBody(),
        responses: { 204: c.noBody(), ...problems('NOT_FOUND', 'IMPORT_COMMITTED') },
        metadata: meta('login'),
      },
      profiles: {
        method: 'GET',
        path: '/api/account/import-profiles',
        summary: 'Saved mappings, one per file shape',
        responses: { 200: ImportProfileListSchema },
        metadata: meta('login'),
      },
      deleteProfile: {
        method: 'DELETE',
        path: '/api/account/import-profiles/:id',
        summary: 'Forget a saved mapping',
        pathParams: IdParamSchema,
        body: c.noBody(),
        responses: { 204: c.noBody(), ...problems('NOT_FOUND') },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);

/** Component names of statement import (see schema-names.ts). */
export const importsNamedSchemas: NamedSchemas = {
  Import: ImportSchema,
  ImportRow: ImportRowSchema,
  ImportRowPage: ImportRowPageSchema,
  ImportPage: ImportPageSchema,
  ImportCounts: ImportCountsSchema,
  ImportOutcome: ImportOutcomeSchema,
  ColumnMapping: ColumnMappingSchema,
  // The request form is closed and the answer open (C46): one component each.
  ColumnMappingRequest: strictInput(ColumnMappingSchema),
  DateOrder: DateOrderSchema,
  SignConvention: SignConventionSchema,
  StatementFormat: StatementFormatSchema,
  StatementEncoding: StatementEncodingSchema,
  AdjustImportRequest: AdjustImportRequestSchema,
  ImportUndoResult: ImportUndoResultSchema,
  ImportProfile: ImportProfileSchema,
  ImportProfileList: ImportProfileListSchema,
};
