/**
 * Variations of a delimited statement shape, for generated tests (SOURCE.md's "variation test plan"): shuffled
 * columns, extra header lines, thousands separators toggled, trailing summary rows, another delimiter. Pure functions
 * over a shape's rows and expectation: no I/O, no parser code. A test builds a variation, serialises it, encodes it,
 * runs the parser and compares with the variation's own expectation.
 */
import type { ColumnMapping, Line } from './lib/expected';

/** A delimited shape as text cells, with the expected line of each data row. */
export interface DelimitedShape {
  preamble: string[][];
  header: string[];
  rows: string[][];
  lines: Line[];
  mapping: ColumnMapping;
  headerRow: number;
}

export interface Variation extends DelimitedShape {
  /** What was changed, for the test's name. */
  name: string;
}

const INDEX_FIELDS = [
  'date',
  'time',
  'amount',
  'withdrawal',
  'deposit',
  'description',
  'transactionId',
  'installments',
  'currency',
  'foreignAmount',
  'card',
  'balance',
  'status',
] as const satisfies readonly (keyof ColumnMapping)[];

function remap(mapping: ColumnMapping, to: (index: number) => number): ColumnMapping {
  const out: ColumnMapping = { ...mapping };
  for (const field of INDEX_FIELDS) {
    const index = mapping[field];
    if (index !== null) (out as unknown as Record<string, number | null>)[field] = to(index);
  }
  return out;
}

/**
 * The columns in a new order: `order[i]` is the old index of new column i (a permutation). Lines are unchanged; the
 * mapping follows the columns.
 */
export function shuffleColumns(shape: DelimitedShape, order: number[]): Variation {
  const width = shape.header.length;
  if (order.length !== width || new Set(order).size !== width || order.some((i) => i < 0 || i >= width)) {
    throw new Error('order must be a permutation of the header columns');
  }
  const newIndexOf = new Map(order.map((old, i) => [old, i]));
  const pick = (cells: string[]) => order.map((old) => cells[old] ?? '');
  return {
    ...shape,
    name: `columns in order ${order.join(',')}`,
    header: pick(shape.header),
    rows: shape.rows.map(pick),
    mapping: remap(shape.mapping, (i) => newIndexOf.get(i) as number),
  };
}

/** A rotation of the columns by `by` places: a permutation that moves every column. */
export function rotateColumns(shape: DelimitedShape, by = 1): Variation {
  const width = shape.header.length;
  const order = Array.from({ length: width }, (_, i) => (i + by) % width);
  return { ...shuffleColumns(shape, order), name: `columns rotated by ${by}` };
}

/** `count` more title lines above the header (or all removed with `count: -Infinity`). */
export function headerLines(shape: DelimitedShape, count: number): Variation {
  const extra = Array.from({ length: Math.max(0, count) }, (_, i) => [`조회 안내 ${i + 1}`]);
  const preamble = count === Number.NEGATIVE_INFINITY ? [] : [...extra, ...shape.preamble];
  return {
    ...shape,
    name: count === Number.NEGATIVE_INFINITY ? 'no title lines' : `${count} more title lines`,
    preamble,
    headerRow: preamble.length,
  };
}

const NUMBER = /^(-?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(원)?$/;

function withSeparators(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Amount cells (the mapping's amount, withdrawal, deposit, balance and foreignAmount columns) rewritten: `'off'` drops
 * thousands separators, `'on'` adds them, `'won'` adds them and a trailing 원. Lines are unchanged: the amounts are the
 * same numbers. Summary rows are rewritten too; cells that are not plain numbers are left alone.
 */
export function thousands(shape: DelimitedShape, mode: 'off' | 'on' | 'won'): Variation {
  const m = shape.mapping;
  const columns = new Set(
    [m.amount, m.withdrawal, m.deposit, m.balance, m.foreignAmount].filter((i): i is number => i !== null),
  );
  const rewrite = (cell: string) => {
    const match = NUMBER.exec(cell.trim());
    if (!match) return cell;
    const [, sign, digits = '', decimals = ''] = match;
    const plain = digits.replaceAll(',', '');
    if (mode === 'off') return `${sign}${plain}${decimals}`;
    return `${sign}${withSeparators(plain)}${decimals}${mode === 'won' ? '원' : ''}`;
  };
  return {
    ...shape,
    name: `thousands separators ${mode}`,
    rows: shape.rows.map((cells) => cells.map((cell, i) => (columns.has(i) ? rewrite(cell) : cell))),
  };
}

/**
 * Summary rows appended after the data: each label goes in the date column (where most Korean exports put 합계),
 * the rest of the row empty. Each is expected SKIPPED as `summary row: <label>`; a blank row before them when asked.
 */
export function trailingSummaries(shape: DelimitedShape, labels: string[], blankFirst = false): Variation {
  const width = shape.header.length;
  const empty = () => Array.from({ length: width }, () => '');
  const rows = [...shape.rows];
  const lines = [...shape.lines];
  if (blankFirst) {
    rows.push(empty());
    lines.push(skippedLine('blank row'));
  }
  for (const label of labels) {
    const cells = empty();
    cells[shape.mapping.date] = label;
    rows.push(cells);
    lines.push(skippedLine(`summary row: ${label}`));
  }
  return { ...shape, name: `trailing ${blankFirst ? 'blank row and ' : ''}${labels.join(', ')}`, rows, lines };
}

/** The shape without its trailing SKIPPED rows (e.g. without its 합계). */
export function withoutTrailingSummaries(shape: DelimitedShape): Variation {
  let end = shape.rows.length;
  while (end > 0 && shape.lines[end - 1]?.kind === 'SKIPPED') end -= 1;
  return {
    ...shape,
    name: 'no trailing summary rows',
    rows: shape.rows.slice(0, end),
    lines: shape.lines.slice(0, end),
  };
}

function skippedLine(reason: string): Line {
  return {
    kind: 'SKIPPED',
    reason,
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
}

/**
 * The variation as text: cells quoted where the delimiter or a quote needs it, CRLF line ends. Returns the text and
 * the 1-based line number of every data row (for `rowNumber`).
 */
export function serialize(
  shape: DelimitedShape,
  delimiter: ',' | '\t' | ';' | '|' = ',',
): { text: string; rowNumbers: number[] } {
  const line = (cells: string[]) =>
    cells
      .map((cell) => (cell.includes(delimiter) || cell.includes('"') ? `"${cell.replaceAll('"', '""')}"` : cell))
      .join(delimiter);
  const all = [...shape.preamble.map(line), line(shape.header), ...shape.rows.map(line)];
  const first = shape.preamble.length + 2;
  return { text: `${all.join('\r\n')}\r\n`, rowNumbers: shape.rows.map((_, i) => first + i) };
}

/** The plan every delimited SOURCE.md lists, as one list of variations. */
export function standardVariations(shape: DelimitedShape): Variation[] {
  return [
    rotateColumns(shape, 1),
    rotateColumns(shape, Math.floor(shape.header.length / 2)),
    headerLines(shape, Number.NEGATIVE_INFINITY),
    headerLines(shape, 3),
    thousands(shape, 'off'),
    thousands(shape, 'on'),
    thousands(shape, 'won'),
    withoutTrailingSummaries(shape),
    trailingSummaries(withoutTrailingSummaries(shape), ['합계']),
    trailingSummaries(withoutTrailingSummaries(shape), ['소계', '합계'], true),
  ];
}
