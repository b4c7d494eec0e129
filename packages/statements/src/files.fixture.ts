/** Test-only: statement files built in memory (text in any encoding, workbooks, zips). */
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { normalizeRows, proposeMapping, readStatement } from './index.js';
import type { NormalizeOptions, StatementLimits } from './types.js';

export function encode(
  text: string,
  encoding: 'utf8' | 'utf8-bom' | 'cp949' | 'euc-kr' | 'utf16le' | 'utf16be',
): Uint8Array {
  switch (encoding) {
    case 'utf8':
      return new TextEncoder().encode(text);
    case 'utf8-bom':
      return new TextEncoder().encode(`\uFEFF${text}`);
    case 'utf16le':
      return iconv.encode(text, 'utf-16le', { addBOM: true });
    case 'utf16be':
      return iconv.encode(text, 'utf-16be', { addBOM: true });
    default:
      return iconv.encode(text, encoding);
  }
}

export function lines(...rows: string[]): string {
  return rows.join('\r\n');
}

/** A workbook written by exceljs: `build` fills it. */
export async function workbook(build: (wb: ExcelJS.Workbook) => void): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  build(wb);
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

/** read + propose + normalise, as the api will call them. */
export async function pipeline(
  bytes: Uint8Array,
  fileName: string,
  options: Partial<NormalizeOptions> = {},
  limits: Partial<StatementLimits> = {},
) {
  const table = await readStatement(bytes, fileName, limits);
  const proposal = proposeMapping(table);
  const lines = normalizeRows(table, proposal.mapping, {
    dateOrder: proposal.dateOrder ?? 'YMD',
    defaultCurrency: 'KRW',
    ...options,
  });
  return { table, proposal, lines, transactions: lines.filter((l) => l.kind === 'TRANSACTION') };
}
