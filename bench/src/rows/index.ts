import { adminRows } from './admin.js';
import { authRows } from './auth.js';
import { backupRows } from './backup.js';
import { boardRows } from './board.js';
import { importRows } from './imports.js';
import { ledgerRows } from './ledger.js';
import { statisticsRows } from './statistics.js';
import type { BenchRow } from './types.js';

/** Every row, in report order. A new area adds its file here. */
export const allRows: BenchRow[] = [
  ...authRows,
  ...adminRows,
  ...ledgerRows,
  ...statisticsRows,
  ...boardRows,
  ...backupRows,
  ...importRows,
];

export function rowByKey(key: string): BenchRow {
  const row = allRows.find((candidate) => candidate.key === key);
  if (!row) throw new Error(`no bench row "${key}"; rows: ${allRows.map((known) => known.key).join(', ')}`);
  return row;
}
