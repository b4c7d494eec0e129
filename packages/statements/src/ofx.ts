import { quoted } from './decode.js';
import { StatementError } from './errors.js';
import { tooManyRows } from './header.js';
import type { OfxTransaction, StatementEncoding, StatementLimits, StatementTable } from './types.js';

/** The header of the table an OFX file is given (the shared format's order). */
export const OFX_HEADER = ['DTPOSTED', 'TRNAMT', 'NAME', 'MEMO', 'FITID', 'TRNTYPE'];

const TRANSACTION = /<STMTTRN>([\s\S]*?)(?=<\/STMTTRN>|<STMTTRN>|<\/BANKTRANLIST>|$)/gi;
const OFX_DATE = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?/;

/**
 * An OFX/QFX statement as a table. One small reader for both OFX 1.x (SGML: leaf elements are not closed,
 * `<TRNAMT>-12.34`) and 2.x (XML): every leaf is read as `<TAG>value` up to the next tag or line end, so both
 * spellings give the same values. Dates are the calendar dates as written (`20260514120000[+9:KST]` is 2026-05-14
 * whatever its zone).
 */
export function readOfx(
  text: string,
  encoding: StatementEncoding,
  fileName: string,
  limits: StatementLimits,
): StatementTable {
  const start = text.search(/<OFX>/i);
  if (start < 0) {
    throw new StatementError(
      'NO_HEADER',
      `${quoted(fileName)} starts like an OFX file but has no <OFX> statement in it. Download the statement again.`,
    );
  }
  const body = text.slice(start);
  const transactions: OfxTransaction[] = [];
  const rowNumbers: number[] = [];
  let line = lineOf(text, 0, start, 1);
  let at = start;
  for (const m of body.matchAll(TRANSACTION)) {
    if (transactions.length >= limits.maxRows) throw tooManyRows(fileName, limits);
    const index = start + m.index;
    line = lineOf(text, at, index, line);
    at = index;
    const block = m[1]!;
    const posted = ofxDate(leaf(block, 'DTPOSTED') ?? leaf(block, 'DTUSER') ?? '');
    transactions.push({
      fitId: leaf(block, 'FITID') ?? '',
      type: (leaf(block, 'TRNTYPE') ?? '').toUpperCase(),
      posted: posted?.date ?? '',
      time: posted?.time ?? null,
      amount: leaf(block, 'TRNAMT') ?? '',
      name: leaf(block, 'NAME') ?? leaf(block, 'PAYEEID'),
      memo: leaf(block, 'MEMO'),
    });
    rowNumbers.push(line);
  }
  if (transactions.length === 0) {
    throw new StatementError(
      'EMPTY',
      `${quoted(fileName)} is an OFX statement without transactions. Check the period chosen when downloading it.`,
    );
  }
  const from = ofxDate(leaf(body, 'DTSTART') ?? '');
  const to = ofxDate(leaf(body, 'DTEND') ?? '');
  return {
    format: 'OFX',
    encoding,
    delimiter: null,
    sheet: null,
    headerRow: 0,
    header: [...OFX_HEADER],
    rows: transactions.map((t) => [
      t.time ? `${t.posted} ${t.time}` : t.posted,
      t.amount,
      t.name ?? '',
      t.memo ?? '',
      t.fitId,
      t.type,
    ]),
    rowNumbers,
    transactions,
    currency: leaf(body, 'CURDEF')?.toUpperCase() ?? null,
    account: leaf(body, 'ACCTID'),
    accountType: /<CCSTMTRS>/i.test(body) ? 'CARD' : /<STMTRS>/i.test(body) ? 'BANK' : null,
    period: from && to ? { from: from.date, to: to.date } : null,
  };
}

/** The text of the first `<TAG>` in the block, SGML or XML alike; null when absent or empty. */
function leaf(block: string, tag: string): string | null {
  const m = new RegExp(`<${tag}>([^<\\r\\n]*)`, 'i').exec(block);
  if (!m) return null;
  const value = entities(m[1]!).replace(/\s+/g, ' ').trim();
  return value === '' ? null : value;
}

function entities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n: string) => String.fromCodePoint(Number.parseInt(n, 16)))
    .replace(/&amp;/g, '&');
}

/** `YYYYMMDD[HHMMSS[.XXX]][[±h:TZ]]` as a date and, when the time is not midnight, HH:MM:SS. */
function ofxDate(value: string): { date: string; time: string | null } | null {
  const m = OFX_DATE.exec(value.trim());
  if (!m) return null;
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  const time =
    m[4] && (m[4] !== '00' || m[5] !== '00' || (m[6] ?? '00') !== '00') ? `${m[4]}:${m[5]}:${m[6] ?? '00'}` : null;
  return { date, time };
}

function lineOf(text: string, from: number, to: number, line: number): number {
  let n = line;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** Whether the start of a text is an OFX file (1.x header lines, or an XML prolog with the OFX processing instruction). */
export function looksLikeOfx(head: string): boolean {
  return /^\s*OFXHEADER\s*:/i.test(head) || /<\?OFX\s/i.test(head) || /^\s*(<\?xml[^>]*>\s*)?<OFX>/i.test(head);
}

/** The charset an OFX 1.x header or an XML prolog declares, when it is Windows-1252/ISO-8859-1. */
export function declaredLatin(head: string): boolean {
  return /CHARSET\s*:\s*(1252|ISO-8859-1)|encoding=["'](windows-1252|iso-8859-1|latin1)["']|charset=["']?(windows-1252|iso-8859-1)/i.test(
    head,
  );
}
