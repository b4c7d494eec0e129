import { type HTMLElement, parse } from 'node-html-parser';
import { quoted } from './decode.js';
import { StatementError } from './errors.js';
import { type Grid, locateHeader } from './header.js';
import type { StatementEncoding, StatementLimits, StatementTable } from './types.js';

/** The widest span honoured (a colspan of 1,000 on a hostile page would otherwise fill memory). */
const MAX_SPAN = 64;

/**
 * An HTML page (the "Excel" download of Korean card and bank sites is an HTML table) as a table: its tables are
 * tried most tabular first (rows × columns), and the first with a header row is read. `<th>` and `<td>` text with
 * `<br>` as a space; colspan and rowspan repeat the cell's text over the cells it spans, as a merged cell in Excel.
 */
export function readHtml(
  text: string,
  encoding: StatementEncoding,
  fileName: string,
  limits: StatementLimits,
): StatementTable {
  const root = parse(text.replace(/<br\s*\/?>/gi, ' '), {
    comment: false,
    blockTextElements: { script: false, style: false, noscript: false },
  });
  // A row's number is its <tr>'s ordinal in the page, across tables, as the page opened in Excel numbers it.
  const ordinals = new Map(root.querySelectorAll('tr').map((tr, i) => [tr, i + 1]));
  const grids = root
    .querySelectorAll('table')
    .map((table) => tableGrid(table, ordinals))
    .filter((g) => g.rows.length > 0)
    .sort((a, b) => tabularity(b) - tabularity(a));
  if (grids.length === 0) {
    throw new StatementError(
      'NO_HEADER',
      `${quoted(fileName)} is a web page without a table of transactions. Download the statement as Excel or CSV from the card or bank site and upload that file.`,
    );
  }
  let firstError: unknown = null;
  for (const grid of grids) {
    try {
      const located = locateHeader(grid, fileName, limits);
      // headerRow too counts the page's rows (0-based), not the table's.
      const headerRow = (grid.rowNumbers[located.headerRow] ?? located.headerRow + 1) - 1;
      return { format: 'HTML', encoding, delimiter: null, sheet: null, ...located, headerRow };
    } catch (err) {
      if (!(err instanceof StatementError) || err.code === 'TOO_MANY_ROWS') throw err;
      firstError ??= err;
    }
  }
  throw firstError;
}

function tabularity(grid: Grid): number {
  const wide = grid.rows.filter((r) => r.filter((c) => c !== '').length >= 2);
  return wide.length * Math.max(0, ...wide.map((r) => r.length));
}

/** The table's own rows (not those of tables inside it), spans expanded. */
function tableGrid(table: HTMLElement, ordinals: Map<HTMLElement, number>): Grid {
  const trs: HTMLElement[] = [];
  for (const child of table.childNodes as HTMLElement[]) {
    const tag = child.rawTagName?.toLowerCase();
    if (tag === 'tr') trs.push(child);
    else if (tag === 'thead' || tag === 'tbody' || tag === 'tfoot') {
      for (const tr of child.childNodes as HTMLElement[]) if (tr.rawTagName?.toLowerCase() === 'tr') trs.push(tr);
    }
  }
  const rows: string[][] = [];
  /** cells filled from rowspans above: row index → column → text */
  const carried = new Map<number, Map<number, string>>();
  trs.forEach((tr, r) => {
    const row: string[] = [];
    const fromAbove = carried.get(r) ?? new Map<number, string>();
    let c = 0;
    const skipCarried = () => {
      while (fromAbove.has(c)) {
        row[c] = fromAbove.get(c)!;
        c++;
      }
    };
    for (const cell of tr.childNodes as HTMLElement[]) {
      const tag = cell.rawTagName?.toLowerCase();
      if (tag !== 'td' && tag !== 'th') continue;
      skipCarried();
      const text = cell.text.replace(/\s+/g, ' ').trim();
      const colspan = span(cell.getAttribute('colspan'));
      const rowspan = span(cell.getAttribute('rowspan'));
      for (let k = 0; k < colspan; k++) {
        row[c + k] = text;
        for (let down = 1; down < rowspan; down++) {
          const below = carried.get(r + down) ?? new Map<number, string>();
          below.set(c + k, text);
          carried.set(r + down, below);
        }
      }
      c += colspan;
    }
    skipCarried();
    for (const [col, text] of fromAbove) if (row[col] === undefined) row[col] = text;
    carried.delete(r);
    rows.push(Array.from(row, (x) => x ?? ''));
  });
  return { rows, rowNumbers: trs.map((tr, i) => ordinals.get(tr) ?? i + 1) };
}

function span(value: string | undefined): number {
  const n = Number.parseInt(value ?? '1', 10);
  return Number.isFinite(n) && n > 1 ? Math.min(n, MAX_SPAN) : 1;
}
