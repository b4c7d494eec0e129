import type { ColumnMapping, DateOrder, Import, ImportCounts, ImportRow } from '@nestegg/contract';
import type { StatementImport } from '@nestegg/db';
import type { StatementLine } from '@nestegg/statements';
import type { StoredRow } from './imports.repository.js';
import type { ImportSettings } from './imports.service.js';

/** How an import's file was read, as stored. */
interface StoredReading {
  format: Import['format'];
  encoding: Import['encoding'];
  delimiter: string | null;
  sheet: string | null;
  headerRow: number;
  header: string[];
}

/** A stored import as the contract's `Import`. */
export function importView(row: StatementImport, undoableUntil: Date | null): Import {
  const reading = row.reading as StoredReading;
  const settings = row.settings as ImportSettings;
  return {
    id: row.id,
    status: row.status,
    fileName: row.fileName,
    format: reading.format,
    encoding: reading.encoding,
    delimiter: reading.delimiter,
    sheet: reading.sheet,
    headerRow: reading.headerRow,
    header: reading.header,
    mapping: settings.mapping as ColumnMapping,
    dateOrder: settings.dateOrder as DateOrder,
    currency: settings.currency ?? 'KRW',
    dateOrderCandidates: settings.candidates as DateOrder[],
    accountId: settings.accountId,
    profile: settings.profile,
    counts: row.counts as ImportCounts,
    rowCount: row.rowCount,
    createdAt: row.createdAt.toISOString(),
    committedAt: row.committedAt?.toISOString() ?? null,
    undoneAt: row.undoneAt?.toISOString() ?? null,
    undoableUntil: undoableUntil?.toISOString() ?? null,
  };
}

/** A stored row as the contract's `ImportRow`. */
export function rowView(row: StoredRow): ImportRow {
  const line = row.line as StatementLine;
  return {
    index: row.rowIndex,
    rowNumber: line.rowNumber,
    outcome: row.outcome,
    date: line.date,
    time: line.time,
    type: line.type,
    amount: row.amount,
    currency: line.currency,
    originalAmount: line.originalAmount,
    description: line.description,
    transactionId: line.transactionId,
    installmentMonths: line.installmentMonths,
    cancellation: line.cancellation,
    category: row.category,
    entryId: row.entryId,
    cancelsRow: row.cancelsRow,
    candidates: row.candidates,
    reason: row.reason,
  };
}
