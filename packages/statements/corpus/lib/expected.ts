/**
 * The corpus's own copy of FORMAT.md's expectation types, and the helpers that write `expected.json`.
 * Written from FORMAT.md by hand (no parser code): a shape's generate.ts states each row's line, the writer adds the
 * row's `index` (position in `table.rows`) and `rowNumber` (1-based row or line in the file) from where it put it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type StatementFormat = 'CSV' | 'XLSX' | 'OFX' | 'HTML';
export type StatementEncoding = 'UTF-8' | 'UTF-8-BOM' | 'UTF-16LE' | 'UTF-16BE' | 'CP949';
export type DateOrder = 'YMD' | 'DMY' | 'MDY';
export type SignConvention = 'NEGATIVE_IS_EXPENSE' | 'POSITIVE_IS_EXPENSE';

export interface ColumnMapping {
  date: number;
  time: number | null;
  amount: number | null;
  sign: SignConvention | null;
  withdrawal: number | null;
  deposit: number | null;
  description: number;
  transactionId: number | null;
  installments: number | null;
  currency: number | null;
  foreignAmount: number | null;
  card: number | null;
  balance: number | null;
  status: number | null;
}

export interface StatementLine {
  index: number;
  rowNumber: number;
  kind: 'TRANSACTION' | 'SKIPPED' | 'INVALID';
  reason: string | null;
  date: string | null;
  time: string | null;
  type: 'EXPENSE' | 'INCOME' | null;
  amount: number | null;
  currency: string | null;
  originalAmount: string | null;
  description: string | null;
  transactionId: string | null;
  installmentMonths: number | null;
  card: string | null;
  balance: number | null;
  cancellation: boolean;
}

export interface Expected {
  format: StatementFormat;
  encoding: StatementEncoding | null;
  delimiter: string | null;
  sheet: string | null;
  headerRow: number;
  mapping: ColumnMapping;
  /** The order the lines are read under (normalizeRows' dateOrder). */
  dateOrder: DateOrder;
  /**
   * What proposeMapping must say of the date order, where that is not `dateOrder` alone (the data cannot tell: null
   * with the candidates to ask between). Absent: `{ dateOrder, candidates: [dateOrder] }`.
   */
  proposal?: { dateOrder: DateOrder | null; candidates: DateOrder[] };
  lines: StatementLine[];
}

/** A row's expected line before the writer knows where the row landed. */
export type Line = Omit<StatementLine, 'index' | 'rowNumber'>;

/** Every mapping field, null where the shape has no such column. */
export function mapping(fields: Partial<ColumnMapping> & Pick<ColumnMapping, 'date' | 'description'>): ColumnMapping {
  return {
    date: fields.date,
    time: fields.time ?? null,
    amount: fields.amount ?? null,
    sign: fields.sign ?? null,
    withdrawal: fields.withdrawal ?? null,
    deposit: fields.deposit ?? null,
    description: fields.description,
    transactionId: fields.transactionId ?? null,
    installments: fields.installments ?? null,
    currency: fields.currency ?? null,
    foreignAmount: fields.foreignAmount ?? null,
    card: fields.card ?? null,
    balance: fields.balance ?? null,
    status: fields.status ?? null,
  };
}

const EMPTY: Line = {
  kind: 'TRANSACTION',
  reason: null,
  date: null,
  time: null,
  type: null,
  amount: null,
  currency: null,
  originalAmount: null,
  description: null,
  transactionId: null,
  installmentMonths: null,
  card: null,
  balance: null,
  cancellation: false,
};

type TransactionFields = Partial<Omit<Line, 'kind' | 'reason'>> &
  Pick<Line, 'date' | 'type' | 'description'> & { amount: number | null };

/** A ledger line. Fields the row does not give stay null; `cancellation` defaults to false. */
export function tx(fields: TransactionFields): Line {
  return { ...EMPTY, ...fields, kind: 'TRANSACTION', reason: null };
}

/** An expense paid in local currency (won). */
export function expense(date: string, description: string, amount: number, more: Partial<Line> = {}): Line {
  return tx({ date, type: 'EXPENSE', description, amount, ...more });
}

/** Money in (bank deposits, salary, interest). */
export function income(date: string, description: string, amount: number, more: Partial<Line> = {}): Line {
  return tx({ date, type: 'INCOME', description, amount, ...more });
}

/**
 * A 취소 / refund / reversal of an earlier card purchase: type EXPENSE (what it reverses), amount > 0,
 * cancellation true. The ledger decides what to do with it (cancel the matching purchase).
 */
export function cancelled(date: string, description: string, amount: number | null, more: Partial<Line> = {}): Line {
  return tx({ date, type: 'EXPENSE', description, amount, ...more, cancellation: true });
}

/** A blank row, a repeated header or a total/summary row: kept in `rows`, marked by normalisation. */
export function skipped(reason: string): Line {
  return { ...EMPTY, kind: 'SKIPPED', reason };
}

/** A row that cannot be read as a ledger line; normalisation never throws for it. */
export function invalid(reason: string): Line {
  return { ...EMPTY, kind: 'INVALID', reason };
}

/** A data row of the table: the cells the file shows, and the line normalisation must make of it. */
export interface DataRow<C = string | number | Date | null> {
  cells: C[];
  line: Line;
}

export function row<C = string | number | Date | null>(cells: C[], line: Line): DataRow<C> {
  return { cells, line };
}

/** Writes `expected.json`, numbering the lines: `rowNumbers[i]` is the file's 1-based row/line of data row i. */
export function writeExpected(
  dir: string,
  head: Omit<Expected, 'lines'>,
  lines: Line[],
  rowNumbers: number[],
): Expected {
  if (lines.length !== rowNumbers.length) throw new Error(`${dir}: ${lines.length} lines, ${rowNumbers.length} rows`);
  const expected: Expected = {
    ...head,
    lines: lines.map((line, index) => ({ index, rowNumber: rowNumbers[index] as number, ...line })),
  };
  writeFileSync(join(dir, 'expected.json'), `${json(expected)}\n`);
  return expected;
}

const SCALAR = String.raw`(?:"[^"\n]*"|-?\d[\d.]*|null|true|false)`;
const SCALAR_ARRAY = new RegExp(String.raw`\[\n\s+(${SCALAR}(?:,\n\s+${SCALAR})*)\n\s*\]`, 'g');

/** JSON as the repository's formatter writes it: two spaces, an array of scalars on one line. */
function json(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    SCALAR_ARRAY,
    (_, items: string) => `[${items.split(/,\n\s+/).join(', ')}]`,
  );
}
