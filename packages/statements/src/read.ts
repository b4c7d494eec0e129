import { detectDelimiter, readCsvGrid } from './csv.js';
import { decodeText, quoted } from './decode.js';
import { StatementError } from './errors.js';
import { HEADER_SCAN_ROWS, locateHeader, tooManyRows } from './header.js';
import { readHtml } from './html.js';
import { declaredLatin, looksLikeOfx, readOfx } from './ofx.js';
import type { ReadOptions, StatementEncoding, StatementLimits, StatementTable } from './types.js';
import { readXlsx } from './xlsx.js';

export const DEFAULT_LIMITS: StatementLimits = {
  maxBytes: 10 * 1024 * 1024,
  maxRows: 50_000,
  maxUnzippedBytes: 100 * 1024 * 1024,
};

const ZIP = [0x50, 0x4b, 0x03, 0x04];
const EMPTY_ZIP = [0x50, 0x4b, 0x05, 0x06];
const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const PDF = [0x25, 0x50, 0x44, 0x46, 0x2d];

/**
 * A statement file read into a table. The format is told by the bytes, not the name (Korean sites name HTML
 * tables `.xls`): a zip is XLSX, an OLE2 file legacy Excel, text is OFX, an HTML table or CSV/TSV by its start.
 * Throws StatementError for a file that cannot be read at all. Async because exceljs reads workbooks so.
 */
export async function readStatement(
  bytes: Uint8Array,
  fileName: string,
  limits: Partial<StatementLimits> = {},
  options: ReadOptions = {},
): Promise<StatementTable> {
  const l: StatementLimits = { ...DEFAULT_LIMITS, ...limits };
  if (bytes.length > l.maxBytes) {
    throw new StatementError(
      'TOO_LARGE',
      `${quoted(fileName)} is ${size(bytes.length)}, more than the ${size(l.maxBytes)} a statement upload may be. ` +
        'Download a shorter period and upload it in parts.',
    );
  }
  if (bytes.length === 0)
    throw new StatementError('EMPTY', `${quoted(fileName)} is empty (0 bytes). Download the statement again.`);
  if (startsWith(bytes, ZIP) || startsWith(bytes, EMPTY_ZIP)) return readXlsx(bytes, fileName, l, options);
  if (startsWith(bytes, OLE2)) {
    throw new StatementError(
      'LEGACY_XLS',
      `${quoted(fileName)} is an old binary Excel file (.xls, Excel 97–2003), which cannot be read here. ` +
        'Open it in Excel (or Numbers, LibreOffice, Google Sheets) and save it as .xlsx or as CSV, then upload that file. ' +
        '(A password-protected workbook looks the same: remove the password when saving.)',
    );
  }
  if (startsWith(bytes, PDF)) {
    throw new StatementError(
      'UNSUPPORTED_FORMAT',
      `${quoted(fileName)} is a PDF, which cannot be read as a statement. Download the transactions as Excel, CSV or OFX from the card or bank site instead.`,
    );
  }
  const head = latinHead(bytes);
  const { text, encoding } = decodeText(bytes, fileName, declaredLatin(head) ? 'WINDOWS-1252' : null);
  const start = text.slice(0, 4096);
  if (looksLikeOfx(start)) return readOfx(text, encoding, fileName, l);
  if (/<Workbook[^>]*urn:schemas-microsoft-com:office:spreadsheet/i.test(start)) {
    throw new StatementError(
      'LEGACY_XLS',
      `${quoted(fileName)} is an Excel 2003 XML spreadsheet, which cannot be read here. Open it in Excel (or LibreOffice) and save it as .xlsx or CSV, then upload that file.`,
    );
  }
  // Markup first (whatever its first tag: <html>, <meta>, <table>, <!-- …) and a table in it: an HTML "Excel" download.
  if (/^\s*</.test(start) && /<table[\s>]/i.test(text)) {
    return readHtml(text, encoding, fileName, l);
  }
  if (/^\s*<(!doctype\s+html|html)/i.test(start)) {
    throw new StatementError(
      'NO_HEADER',
      `${quoted(fileName)} is a web page without a table of transactions (perhaps a login or error page saved instead of the download). ` +
        'Download the statement as Excel, CSV or OFX and upload that file.',
    );
  }
  return readCsv(text, encoding, fileName, l);
}

function readCsv(text: string, encoding: StatementEncoding, fileName: string, limits: StatementLimits): StatementTable {
  // Excel's `sep=;` first line names the delimiter.
  const sep = /^sep=(.)\r?\n/i.exec(text);
  const body = sep ? text.slice(sep[0].length) : text;
  const delimiter = sep ? sep[1]! : detectDelimiter(body);
  const cap = limits.maxRows + HEADER_SCAN_ROWS + 1;
  const grid = readCsvGrid(body, delimiter, cap, sep ? 2 : 1);
  if (grid.capped) throw tooManyRows(fileName, limits);
  const located = locateHeader(grid, fileName, limits);
  return {
    format: 'CSV',
    encoding,
    delimiter,
    sheet: null,
    ...located,
    headerRow: located.headerRow + (sep ? 1 : 0),
  };
}

function startsWith(bytes: Uint8Array, magic: number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

/** The first bytes as Latin-1, enough to read a declared charset before decoding. */
function latinHead(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes.subarray(0, 1024));
}

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
