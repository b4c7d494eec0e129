/** Test-only: a StatementTable from a header and rows, as a reader would give it. */
import type { StatementTable } from './types.js';

export function table(header: string[], rows: string[][], extra: Partial<StatementTable> = {}): StatementTable {
  return {
    format: 'CSV',
    encoding: 'UTF-8',
    delimiter: ',',
    sheet: null,
    headerRow: 0,
    header,
    rows,
    rowNumbers: rows.map((_, i) => i + 2),
    ...extra,
  };
}
