/**
 * Writers for the corpus's statement files: delimited text, HTML-table "Excel" downloads and XLSX workbooks, in
 * the encodings institutions use. Each writer returns the 1-based row/line number, in the written file, of every
 * data row, so expected.json can say where each line came from.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import type { StatementEncoding } from './expected';

export type Cell = string | number | Date | null;

/** Text as bytes in one of FORMAT.md's encodings; UTF-16 files start with their byte-order mark, as Windows writes them. */
export function encode(text: string, encoding: StatementEncoding): Buffer {
  switch (encoding) {
    case 'UTF-8':
      return Buffer.from(text, 'utf8');
    case 'UTF-8-BOM':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'UTF-16LE':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    case 'UTF-16BE':
      return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    case 'CP949': {
      const bytes = iconv.encode(text, 'cp949');
      // iconv-lite writes '?' for a character CP949 lacks: refuse rather than ship a file that says something else.
      if (iconv.decode(bytes, 'cp949') !== text) throw new Error('text has characters CP949 cannot encode');
      return bytes;
    }
  }
}

function cellText(cell: Cell): string {
  if (cell === null) return '';
  if (cell instanceof Date) throw new Error('a text file has no date cells: write the date as the institution does');
  return String(cell);
}

export interface DelimitedFile {
  /** Lines above the header (titles, account and period lines, blank lines), each a row of cells. */
  preamble: Cell[][];
  header: Cell[];
  rows: Cell[][];
  delimiter: ',' | '\t' | ';' | '|';
  /** Quote every cell (as some exports do), not only those that need it. */
  quoteAll?: boolean;
  lineEnd?: '\r\n' | '\n';
  /** Whether the last line ends with a line break. */
  finalNewline?: boolean;
}

/** Writes a CSV/TSV; returns the 1-based line number of each data row. */
export function writeDelimited(path: string, file: DelimitedFile, encoding: StatementEncoding): number[] {
  const lineEnd = file.lineEnd ?? '\r\n';
  const line = (cells: Cell[]) =>
    cells
      .map(cellText)
      .map((text) => {
        if (/[\r\n]/.test(text)) throw new Error(`a cell spans lines: ${text}`);
        const needs = text.includes(file.delimiter) || text.includes('"');
        return file.quoteAll || needs ? `"${text.replaceAll('"', '""')}"` : text;
      })
      .join(file.delimiter);
  const lines = [...file.preamble.map(line), line(file.header), ...file.rows.map(line)];
  const text = lines.join(lineEnd) + (file.finalNewline === false ? '' : lineEnd);
  writeFileSync(path, encode(text, encoding));
  const first = file.preamble.length + 2;
  return file.rows.map((_, i) => first + i);
}

export interface HtmlCell {
  text: string;
  colspan?: number;
  rowspan?: number;
  /** A header cell (`<th>`) rather than `<td>`. */
  th?: boolean;
}

export type HtmlRow = (string | HtmlCell)[];

export interface HtmlTable {
  rows: HtmlRow[];
  /** Rows of this table that are data rows of the statement (every row after its header rows). */
  data?: boolean;
  attributes?: string;
}

export interface HtmlFile {
  title: string;
  /** The charset the `<meta>` tag names (the bytes are written in `encoding`). */
  charset: string;
  tables: HtmlTable[];
  /** Text outside the tables, before them (an HTML "xls" often carries a heading paragraph). */
  before?: string;
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * Writes an HTML-table "Excel" download (`.xls` whose bytes are an HTML page). Returns the 1-based number, in
 * document order over every `<tr>` of the page, of each row of the table marked `data`, after its header rows.
 */
export function writeHtmlXls(
  path: string,
  file: HtmlFile,
  encoding: StatementEncoding,
  dataStart: { table: number; headerRows: number },
): number[] {
  const out: string[] = [];
  out.push('<html xmlns:x="urn:schemas-microsoft-com:office:excel">');
  out.push('<head>');
  out.push(`<meta http-equiv="Content-Type" content="application/vnd.ms-excel; charset=${file.charset}">`);
  out.push(`<title>${escapeHtml(file.title)}</title>`);
  out.push('<style>td { mso-number-format:"\\@"; }</style>');
  out.push('</head>');
  out.push('<body>');
  if (file.before) out.push(file.before);
  const rowNumbers: number[] = [];
  let tr = 0;
  file.tables.forEach((table, t) => {
    out.push(`<table${table.attributes ? ` ${table.attributes}` : ' border="1"'}>`);
    table.rows.forEach((cells, r) => {
      tr += 1;
      if (t === dataStart.table && r >= dataStart.headerRows) rowNumbers.push(tr);
      const tds = cells.map((cell) => {
        const c = typeof cell === 'string' ? { text: cell } : cell;
        const tag = c.th ? 'th' : 'td';
        const span = `${c.colspan ? ` colspan="${c.colspan}"` : ''}${c.rowspan ? ` rowspan="${c.rowspan}"` : ''}`;
        return `<${tag}${span}>${escapeHtml(c.text)}</${tag}>`;
      });
      out.push(`<tr>${tds.join('')}</tr>`);
    });
    out.push('</table>');
  });
  out.push('</body>');
  out.push('</html>');
  writeFileSync(path, encode(`${out.join('\r\n')}\r\n`, encoding));
  return rowNumbers;
}

export interface Sheet {
  name: string;
  /** Every row of the sheet from row 1, cells from column A. */
  rows: Cell[][];
  /** Excel number formats by 0-based column (e.g. '#,##0' for amounts, 'yyyy.mm.dd' for date cells). */
  numFmt?: Record<number, string>;
  widths?: number[];
}

const FIXED = new Date(Date.UTC(2026, 3, 1, 9, 0, 0));

/** Writes an XLSX workbook (fixed metadata dates, so regenerating changes nothing but what the data changes). */
export async function writeXlsx(path: string, sheets: Sheet[]): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'nestegg corpus';
  workbook.created = FIXED;
  workbook.modified = FIXED;
  for (const sheet of sheets) {
    const ws = workbook.addWorksheet(sheet.name);
    sheet.rows.forEach((cells, r) => {
      const excelRow = ws.getRow(r + 1);
      cells.forEach((value, c) => {
        if (value === null) return;
        const cell = excelRow.getCell(c + 1);
        cell.value = value;
        const fmt = sheet.numFmt?.[c];
        if (fmt && (typeof value === 'number' || value instanceof Date)) cell.numFmt = fmt;
      });
      excelRow.commit();
    });
    sheet.widths?.forEach((width, c) => {
      ws.getColumn(c + 1).width = width;
    });
  }
  const buffer = Buffer.from(await workbook.xlsx.writeBuffer());
  writeFileSync(path, fixZipTimes(buffer));
}

/**
 * The zip writer stamps every entry with the time of writing; stamp them all 2026-04-01 09:00 (DOS time) instead, so
 * a regenerated workbook is byte-identical to the committed one.
 */
function fixZipTimes(zip: Buffer): Buffer {
  const time = 9 << 11;
  const date = ((2026 - 1980) << 9) | (4 << 5) | 1;
  // Walk the central directory (found from the end-of-central-directory record) and each entry's local header.
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip');
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < entries; i += 1) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory');
    zip.writeUInt16LE(time, at + 12);
    zip.writeUInt16LE(date, at + 14);
    const local = zip.readUInt32LE(at + 42);
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error('bad local header');
    zip.writeUInt16LE(time, local + 10);
    zip.writeUInt16LE(date, local + 12);
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return zip;
}

/** A date cell as Excel stores it: the calendar day, at midnight UTC (exceljs writes the serial from UTC). */
export function day(isoDate: string): Date {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d));
}

export function shapeDir(metaUrl: string): string {
  return join(new URL('.', metaUrl).pathname);
}
