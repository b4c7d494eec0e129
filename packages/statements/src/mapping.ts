import { currencyCode, parseAmount, usesDecimalComma } from './amounts.js';
import { type Field, headerKey, namedColumns, nameOf } from './columns.js';
import { dateShape, inferDateOrder } from './dates.js';
import type { ColumnMapping, MappingProposal, SignConvention, StatementTable } from './types.js';

/**
 * The columns of a table, proposed from its header (Korean and English names) and, where the header names none,
 * from the data; and the date order the data tells (null with the candidates when it cannot). Addition:
 * `options.referenceDate` (YYYY-MM-DD, the day the file is taken in) breaks a tie the data leaves, as the statement
 * period's end does when the file states one: the order under which every date is recent (dates.ts).
 */
export function proposeMapping(table: StatementTable, options: { referenceDate?: string } = {}): MappingProposal {
  const mapping = table.format === 'OFX' ? ofxMapping(table) : headerMapping(table);
  const dates = mapping.date >= 0 ? table.rows.map((row) => row[mapping.date] ?? '') : [];
  return { mapping, ...inferDateOrder(dates, table.period?.to ?? options.referenceDate ?? null) };
}

function ofxMapping(table: StatementTable): ColumnMapping {
  const anyName = table.rows.some((r) => (r[2] ?? '') !== '');
  return {
    date: 0,
    time: null,
    amount: 1,
    sign: 'NEGATIVE_IS_EXPENSE',
    withdrawal: null,
    deposit: null,
    description: anyName ? 2 : 3,
    transactionId: 4,
    installments: null,
    currency: null,
    foreignAmount: null,
    card: null,
    balance: null,
    // TRNTYPE: DEBIT/CREDIT say the direction of a file that writes its amounts unsigned.
    status: 5,
  };
}

function headerMapping(table: StatementTable): ColumnMapping {
  const named = namedColumns(table.header);
  const taken = new Set(Object.values(named));
  const column = (field: Field): number | null => named[field] ?? null;

  let date = column('date');
  if (date === null) {
    date = bestColumn(table, taken, (cell) => dateShape(cell) !== null);
    if (date !== null) taken.add(date);
  }
  let withdrawal = column('withdrawal');
  let deposit = column('deposit');
  let amount = column('amount');
  // 승인금액(USD) beside 현지이용금액 and 현지거래통화 (삼성카드 해외): a conversion into another currency than the
  // rows', not the row's amount. Without a foreign amount column, `Amount (USD)` is the amount (and names its currency).
  if (amount !== null && column('foreignAmount') !== null) {
    const unit = headerCurrency(table.header[amount] ?? '');
    if (unit !== null && unit !== 'KRW') amount = null;
  }
  if (withdrawal !== null && deposit !== null) amount = null;
  else if (amount !== null) {
    withdrawal = null;
    deposit = null;
  } else if (withdrawal === null && deposit === null && column('foreignAmount') === null) {
    amount = bestColumn(table, taken, (cell) => parseAmount(cell) !== null || parseAmount(cell, true) !== null);
    if (amount !== null) taken.add(amount);
  }
  let description = describingColumn(table, named.description ?? null);
  if (description === null) {
    description = bestColumn(
      table,
      taken,
      (cell) => cell !== '' && parseAmount(cell) === null && dateShape(cell) === null,
    );
  }
  const time = column('time');
  const balance = column('balance');
  // A bank's 적요 next to a 내용 column says what kind of movement a row is (체크카드, 급여, 출금취소): read as status.
  let status = column('status');
  if (status === null) {
    const summaryColumn = table.header.findIndex((h) => headerKey(h) === '적요');
    if (summaryColumn >= 0 && summaryColumn !== description) status = summaryColumn;
  }
  return {
    date: date ?? 0,
    time: time === date ? null : time,
    amount,
    sign: amount === null ? null : signOf(table, amount, balance),
    withdrawal,
    deposit,
    description: description ?? -1,
    transactionId: column('transactionId'),
    installments: column('installments'),
    currency: column('currency'),
    foreignAmount: column('foreignAmount'),
    card: ownAccountColumn(table, column('card')),
    balance,
    status,
  };
}

/**
 * The description column: the one whose name ranks highest, unless it is blank in rows that have an amount while
 * another column named as plainly (가맹점, 내용, Description…; not 적요 or 메모) is filled in every one of them (Wise:
 * Merchant is blank on transfers, Description never is).
 */
function describingColumn(table: StatementTable, best: number | null): number | null {
  if (best === null) return null;
  const rows = table.rows.slice(0, 200).filter((r) => r.some((c) => parseAmount(c) !== null) && r.some(isDateCell));
  const blankIn = (c: number) => rows.filter((r) => (r[c] ?? '').trim() === '').length;
  if (blankIn(best) === 0) return best;
  let better: number | null = null;
  table.header.forEach((cell, c) => {
    const naming = nameOf(cell);
    if (c === best || naming?.field !== 'description' || naming.rank < 8 || blankIn(c) > 0) return;
    better ??= c;
  });
  return better ?? best;
}

function isDateCell(cell: string): boolean {
  return dateShape(cell) !== null;
}

const COUNTERPARTY_BANK =
  /^(거래|상대|상대방|받는|보낸|입금|출금)?(기관|은행|은행명|금융기관)$|^(counterparty|partner|payee|payer)bank/;

/**
 * A 계좌번호/account column is the member's own card or account (`card`) only where it is: filled on every row
 * (the same account, or one per row of a multi-account export). A column filled on some rows only, or beside the
 * other party's bank (토스뱅크: 거래 기관 | 계좌번호), is the other party's account: not mapped.
 */
function ownAccountColumn(table: StatementTable, card: number | null): number | null {
  if (card === null) return null;
  if (!/계좌|account/.test(headerKey(table.header[card] ?? ''))) return card;
  if (table.header.some((h) => COUNTERPARTY_BANK.test(headerKey(h)))) return null;
  const rows = table.rows.slice(0, 200).filter((r) => r.some(isDateCell));
  const filled = rows.filter((r) => (r[card] ?? '').trim() !== '').length;
  return filled === rows.length ? card : null;
}

/** The currency a header cell names in brackets (`승인금액(USD)`, `Amount (EUR)`, `금액(원)`), or null. */
export function headerCurrency(cell: string): string | null {
  const m = /[([]\s*([^()[\]]{1,8}?)\s*[)\]]\s*$/.exec(cell.normalize('NFKC'));
  return m ? currencyCode(m[1]!) : null;
}

/** The untaken column where most non-blank cells pass the test (ties: the leftmost), or null. */
function bestColumn(table: StatementTable, taken: Set<number>, test: (cell: string) => boolean): number | null {
  const width = Math.max(table.header.length, ...table.rows.slice(0, 200).map((r) => r.length));
  let best: number | null = null;
  let bestHits = 0;
  for (let c = 0; c < width; c++) {
    if (taken.has(c)) continue;
    let hits = 0;
    for (const row of table.rows.slice(0, 200)) if (test(row[c] ?? '')) hits++;
    if (hits > bestHits) [best, bestHits] = [c, hits];
  }
  return best;
}

/**
 * The sign convention of a single amount column. A bank statement (a balance column, or mostly negative amounts)
 * writes money spent as negative; a card statement writes it positive, and a negative row there is a cancellation.
 */
function signOf(table: StatementTable, amount: number, balance: number | null): SignConvention {
  if (balance !== null) return 'NEGATIVE_IS_EXPENSE';
  const cells = table.rows.map((r) => r[amount] ?? '');
  const comma = usesDecimalComma(cells);
  let negative = 0;
  let positive = 0;
  for (const cell of cells) {
    const a = parseAmount(cell, comma);
    if (!a || (a.whole === '0' && /^0*$/.test(a.fraction))) continue;
    if (a.negative) negative++;
    else positive++;
  }
  return negative > positive ? 'NEGATIVE_IS_EXPENSE' : 'POSITIVE_IS_EXPENSE';
}
