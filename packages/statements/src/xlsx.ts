import ExcelJS from 'exceljs';
import { headerKey } from './columns.js';
import { quoted } from './decode.js';
import { StatementError } from './errors.js';
import { type Grid, HEADER_SCAN_ROWS, locateHeader, tooManyRows } from './header.js';
import type { ReadOptions, StatementLimits, StatementTable } from './types.js';
import { damaged, storedZip, unzipGuarded } from './zip.js';

/**
 * An XLSX workbook as a table: the zip is checked and inflated within the limits (zip.ts), then exceljs reads the
 * cells. The sheet read is the first (the one `options.sheet` names, else visible sheets first) that has a header
 * row; every later sheet of the same visibility with the same header is read after it (삼성카드 splits one card's
 * use over sheets: 일시불 and 할부, or one per card holder), its rows appended (`sheets`, `rowSheets`). A sheet with a
 * header of its own but other columns (a 해외이용 sheet beside the 국내 one) is named in `otherSheets`, never dropped
 * unsaid. A formula gives its stored result (never evaluated), a date cell its calendar date, a merged cell its
 * master's text.
 */
export async function readXlsx(
  bytes: Uint8Array,
  fileName: string,
  limits: StatementLimits,
  options: ReadOptions = {},
): Promise<StatementTable> {
  const files = await unzipGuarded(bytes, fileName, limits);
  if (!files['xl/workbook.xml']) {
    throw new StatementError(
      'UNSUPPORTED_FORMAT',
      `${quoted(fileName)} is a zip archive but not an Excel workbook (.xlsx). ` +
        'Upload the CSV, Excel (.xlsx) or OFX file itself (an .ods spreadsheet: save it as .xlsx or CSV first).',
    );
  }
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(storedZip(files) as unknown as ArrayBuffer);
  } catch (err) {
    throw damaged(fileName, err);
  }
  const rank = (s: ExcelJS.Worksheet) => (s.name === options.sheet ? 0 : s.state === 'visible' ? 1 : 2);
  const sheets = [...workbook.worksheets].sort((a, b) => rank(a) - rank(b));
  let firstError: unknown = null;
  let table: StatementTable | null = null;
  let key = '';
  let visible = true;
  const rowSheets: string[] = [];
  const otherSheets: string[] = [];
  for (const sheet of sheets) {
    if (sheet.actualRowCount === 0) continue;
    if (sheet.actualRowCount > limits.maxRows + HEADER_SCAN_ROWS) throw tooManyRows(fileName, limits);
    // After the first sheet read, only sheets as visible as it (a hidden sheet is nothing the member sees).
    if (table && (sheet.state === 'visible') !== visible) continue;
    let located: ReturnType<typeof locateHeader>;
    try {
      located = locateHeader(sheetGrid(sheet), fileName, limits);
    } catch (err) {
      if (!(err instanceof StatementError) || err.code === 'TOO_MANY_ROWS') throw err;
      firstError ??= err;
      continue;
    }
    if (!table) {
      table = { format: 'XLSX', encoding: null, delimiter: null, sheet: sheet.name, ...located, sheets: [sheet.name] };
      key = headerOf(located.header);
      visible = sheet.state === 'visible';
      rowSheets.push(...located.rows.map(() => sheet.name));
    } else if (headerOf(located.header) === key) {
      if (table.rows.length + located.rows.length > limits.maxRows) throw tooManyRows(fileName, limits);
      table.rows.push(...located.rows);
      table.rowNumbers.push(...located.rowNumbers);
      table.sheets!.push(sheet.name);
      rowSheets.push(...located.rows.map(() => sheet.name));
    } else {
      otherSheets.push(sheet.name);
    }
  }
  if (!table) {
    throw firstError ?? new StatementError('EMPTY', `${quoted(fileName)} is empty: none of its sheets holds a cell.`);
  }
  table.rowSheets = table.sheets!.length > 1 ? rowSheets : null;
  table.otherSheets = otherSheets;
  return table;
}

/** A header as compared between sheets: its names, trailing blanks dropped. */
function headerOf(header: string[]): string {
  const keys = header.map(headerKey);
  while (keys.length > 0 && keys[keys.length - 1] === '') keys.pop();
  return keys.join('\u0000');
}

function sheetGrid(sheet: ExcelJS.Worksheet): Grid {
  const rows: string[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    while (rows.length < rowNumber - 1) rows.push([]);
    const cells: string[] = [];
    for (let c = 1; c <= row.cellCount; c++) cells.push(cellText(row.getCell(c).value));
    while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
    rows.push(cells);
  });
  return { rows, rowNumbers: rows.map((_, i) => i + 1) };
}

/** A cell's value as the text a statement reader needs. */
export function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return dateText(value);
  if ('richText' in value)
    return value.richText
      .map((r) => r.text)
      .join('')
      .trim();
  if ('formula' in value || 'sharedFormula' in value) return value.result === undefined ? '' : cellText(value.result);
  if ('hyperlink' in value) return cellText(value.text as ExcelJS.CellValue);
  if ('error' in value) return value.error;
  return '';
}

/** 15 significant digits, as Excel shows a number, without exponent for statement-sized numbers. */
function numberText(n: number): string {
  if (!Number.isFinite(n)) return '';
  return String(Number(n.toPrecision(15)));
}

/** A date cell (exceljs gives it as UTC): `2026-05-14`, with ` 12:31` or ` 12:31:05` when it has a time; a time alone when it has no date. */
function dateText(date: Date): string {
  const ms = Math.round(date.getTime() / 1000) * 1000;
  if (Number.isNaN(ms)) return '';
  const d = new Date(ms);
  const day = d.toISOString().slice(0, 10);
  const h = d.getUTCHours();
  const m = d.getUTCMinutes();
  const s = d.getUTCSeconds();
  const time = h || m || s ? `${pad(h)}:${pad(m)}${s ? `:${pad(s)}` : ''}` : '';
  if (day === '1899-12-30' || day === '1899-12-31') return time || day;
  return time ? `${day} ${time}` : day;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
