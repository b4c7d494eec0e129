/**
 * Test-only: the corpus shapes as data for variation tests (variations.test.ts). A shape's cells are read back from
 * its statement file with libraries only (csv-parse, iconv-lite, exceljs, regular expressions over the HTML): never
 * with the parser's own code. The lines it must give come from its expected.json.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { expect } from 'vitest';
import type { Expected, Line } from '../corpus/lib/expected';
import type { DelimitedShape } from '../corpus/variations';
import { normalizeRows, proposeMapping, readStatement } from './index.js';
import type { ColumnMapping, DateOrder, ReadOptions, StatementLine } from './types.js';

export const CORPUS = new URL('../corpus/', import.meta.url).pathname;

export type Cell = string | number | Date | null;

/** A shape as rows of cells (text for CSV and HTML, typed for XLSX), with the line each data row must give. */
export interface Shape<C = string> {
  preamble: C[][];
  header: C[];
  rows: C[][];
  lines: Line[];
  mapping: ColumnMapping;
  headerRow: number;
}

export function expectedOf(shape: string): Expected {
  return JSON.parse(readFileSync(join(CORPUS, shape, 'expected.json'), 'utf8')) as Expected;
}

export function statementOf(shape: string): { name: string; bytes: Buffer } {
  const name = readdirSync(join(CORPUS, shape)).find((f) => f.startsWith('statement.'))!;
  return { name, bytes: readFileSync(join(CORPUS, shape, name)) };
}

function linesOf(e: Expected): Line[] {
  return e.lines.map(({ index: _i, rowNumber: _r, ...line }) => line);
}

const ICONV: Record<string, string> = {
  'UTF-8': 'utf8',
  'UTF-8-BOM': 'utf8',
  'UTF-16LE': 'utf16le',
  'UTF-16BE': 'utf16be',
  CP949: 'cp949',
};

/** A CSV/TSV shape read back with csv-parse. */
export function delimitedShape(shape: string): DelimitedShape {
  const e = expectedOf(shape);
  const text = iconv.decode(statementOf(shape).bytes, ICONV[e.encoding!]!).replace(/^\uFEFF/, '');
  const records = parse(text, { delimiter: e.delimiter!, relax_column_count: true }) as string[][];
  return split(records, e);
}

/** A single-table HTML-table shape read back with regular expressions (one cell per preamble row). */
export function htmlShape(shape: string): DelimitedShape {
  const e = expectedOf(shape);
  const text = iconv.decode(statementOf(shape).bytes, ICONV[e.encoding!]!);
  const records = [...text.matchAll(/<tr>(.*?)<\/tr>/g)].map((tr) =>
    [...tr[1]!.matchAll(/<t[dh][^>]*>(.*?)<\/t[dh]>/g)].map((td) => unescapeHtml(td[1]!)),
  );
  return split(records, e);
}

/** An XLSX shape's sheet read back with exceljs: numbers, dates and text as the workbook holds them. */
export async function xlsxShape(shape: string): Promise<Shape<Cell>> {
  const e = expectedOf(shape);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(statementOf(shape).bytes as unknown as ArrayBuffer);
  const sheet = wb.getWorksheet(e.sheet!)!;
  const records: Cell[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row, n) => {
    while (records.length < n - 1) records.push([]);
    const cells: Cell[] = [];
    for (let c = 1; c <= row.cellCount; c++) {
      const v = row.getCell(c).value;
      cells.push(v === undefined || v === null ? null : (v as Cell));
    }
    records.push(cells);
  });
  return split(records, e);
}

function split<C>(records: C[][], e: Expected): Shape<C> {
  const shape = {
    preamble: records.slice(0, e.headerRow),
    header: records[e.headerRow]!,
    rows: records.slice(e.headerRow + 1),
    lines: linesOf(e),
    mapping: e.mapping,
    headerRow: e.headerRow,
  };
  if (shape.rows.length !== shape.lines.length) throw new Error(`${shape.rows.length} rows, ${e.lines.length} lines`);
  return shape;
}

function unescapeHtml(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** A one-table HTML "Excel" page of a text shape: each preamble row one cell spanning the table. */
export function htmlPage(shape: Shape, charset = 'utf-8', empty = ''): string {
  const width = shape.header.length;
  const td = (c: string) => `<td>${c === '' ? empty : escapeHtml(c)}</td>`;
  const out = [
    '<html xmlns:x="urn:schemas-microsoft-com:office:excel">',
    `<head><meta http-equiv="Content-Type" content="application/vnd.ms-excel; charset=${charset}"></head>`,
    '<body><table border="1">',
    ...shape.preamble.map((r) => `<tr><td colspan="${width}">${escapeHtml(r.join(' '))}</td></tr>`),
    `<tr>${shape.header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>`,
    ...shape.rows.map((r) => `<tr>${r.map(td).join('')}</tr>`),
    '</table></body></html>',
  ];
  return `${out.join('\r\n')}\r\n`;
}

export interface SheetSpec {
  name: string;
  rows: Cell[][];
  state?: 'visible' | 'hidden';
}

/** A workbook of the given sheets, written by exceljs. */
export async function xlsxBytes(sheets: SheetSpec[]): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  for (const spec of sheets) {
    const ws = wb.addWorksheet(spec.name, { state: spec.state ?? 'visible' });
    spec.rows.forEach((cells, r) => {
      const row = ws.getRow(r + 1);
      cells.forEach((value, c) => {
        if (value !== null && value !== '') row.getCell(c + 1).value = value;
      });
      row.commit();
    });
  }
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

/** The rows of a shape, in order, as sheet rows from row 1. */
export function sheetRows<C>(shape: Shape<C>): C[][] {
  return [...shape.preamble, shape.header, ...shape.rows];
}

/** The 1-based file row of each data row of a shape written from row 1 with nothing between. */
export function rowNumbersOf<C>(shape: Shape<C>): number[] {
  return shape.rows.map((_, i) => shape.preamble.length + 2 + i);
}

/** The shape without column `c` (preamble rows too); the mapping follows. */
export function dropColumn<C>(shape: Shape<C>, c: number): Shape<C> {
  const drop = (row: C[]) => row.filter((_, i) => i !== c);
  const mapping = { ...shape.mapping } as Record<string, unknown>;
  for (const [field, value] of Object.entries(mapping)) {
    if (typeof value !== 'number') continue;
    if (value === c) throw new Error(`column ${c} is mapped as ${field}`);
    if (value > c) mapping[field] = value - 1;
  }
  return {
    ...shape,
    preamble: shape.preamble.map(drop),
    header: drop(shape.header),
    rows: shape.rows.map(drop),
    mapping: mapping as unknown as ColumnMapping,
  };
}

/** The same cells with `f` applied to those of the given columns in data rows. */
export function mapColumns<C>(shape: Shape<C>, columns: (number | null)[], f: (cell: C) => C): Shape<C> {
  const set = new Set(columns.filter((c): c is number => c !== null));
  return { ...shape, rows: shape.rows.map((r) => r.map((cell, i) => (set.has(i) ? f(cell) : cell))) };
}

/** A data row appended, with the line it must give. */
export function appendRow<C>(shape: Shape<C>, cells: C[], line: Line): Shape<C> {
  return { ...shape, rows: [...shape.rows, cells], lines: [...shape.lines, line] };
}

/** The data rows (and their lines) in reverse order: newest first ↔ oldest first. */
export function reversed<C>(shape: Shape<C>): Shape<C> {
  return { ...shape, rows: [...shape.rows].reverse(), lines: [...shape.lines].reverse() };
}

export interface Expectation {
  lines: Line[];
  /** normalizeRows' date order */
  dateOrder: DateOrder;
  /** what proposeMapping must say (default: dateOrder, alone) */
  proposal?: { dateOrder: DateOrder | null; candidates: DateOrder[] };
  mapping?: ColumnMapping;
  headerRow?: number;
  /** the 1-based file row of every data row, where the variation knows them */
  rowNumbers?: number[];
  read?: ReadOptions;
}

const strip = ({ index: _i, rowNumber: _r, ...line }: StatementLine): Line => line;
const wording = (line: Line) => ({ ...line, reason: line.kind === 'TRANSACTION' ? null : '…' });

/**
 * Reads a variant file and checks it gives the expected lines, row by row: every transaction exactly (date, time,
 * type, amount, currency, original amount, description, id, instalments, card, balance, cancellation), every
 * SKIPPED and INVALID row of that kind with a reason; and the mapping, header row and row numbers where given.
 */
export async function expectVariant(bytes: Uint8Array, fileName: string, want: Expectation): Promise<StatementLine[]> {
  const table = await readStatement(bytes, fileName, {}, want.read ?? {});
  const proposal = proposeMapping(table);
  expect({ dateOrder: proposal.dateOrder, candidates: proposal.candidates }).toEqual(
    want.proposal ?? { dateOrder: want.dateOrder, candidates: [want.dateOrder] },
  );
  if (want.mapping) expect(proposal.mapping).toEqual(want.mapping);
  if (want.headerRow !== undefined) expect(table.headerRow).toBe(want.headerRow);
  const lines = normalizeRows(table, proposal.mapping, { dateOrder: want.dateOrder, defaultCurrency: 'KRW' });
  expect(lines.map(strip).map(wording)).toEqual(want.lines.map(wording));
  for (const line of lines) if (line.kind !== 'TRANSACTION') expect(line.reason?.trim()).toBeTruthy();
  if (want.rowNumbers) expect(lines.map((l) => l.rowNumber)).toEqual(want.rowNumbers);
  return lines;
}

/** The SKIPPED line of a summary, blank or repeated header row (the reason's wording is the parser's). */
export function skippedLine(): Line {
  return {
    kind: 'SKIPPED',
    reason: 'skipped',
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
