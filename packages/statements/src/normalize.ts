import {
  type Amount,
  currencyCode,
  decimalText,
  isZero,
  parseAmount,
  usesDecimalComma,
  wholeUnits,
} from './amounts.js';
import { headerKey } from './columns.js';
import { dateShape, parseTime, resolveDate } from './dates.js';
import { headerCurrency } from './mapping.js';
import type { ColumnMapping, NormalizeOptions, StatementLine, StatementTable } from './types.js';

/** The ledger's own currency: amounts are whole won. */
export const LOCAL_CURRENCY = 'KRW';

const SUMMARY =
  /^(총)?(합계|소계|총계|누계|계)|(합계|소계|총계|누계)(\d+건)?$|^총(이용|결제|사용|청구|거래|입금|출금)?(금액|건수)|^(총)?\d+건$|^(grand|sub)?total|^sum$|^(opening|closing)balance|^balance(brought|carried)forward|^(전월|이월)(잔액|이월)?$/;
const CANCELLED = /취소|환불|반품|refund|revers|cancel|^return(ed)?$|chargeback/i;
const NOT_CANCELLED = /취소\s*(불가|안\s*됨)|미취소|정상/;
/** A status column that is a yes/no flag of cancellation (`취소여부 Y`), and the cells that say yes. */
const CANCEL_FLAG_HEADER = /^취소(여부|유무)?$|^(is)?cancel(l?ed)?$|^cancellation$|^reversed$/;
const YES = /^(y|yes|예|o|○|●|v|✓|✔|1|true)$/i;
const IN_DESCRIPTION =
  /^\s*[([]\s*(승인)?취소\s*[)\]]|[([]\s*(승인|매출|부분)?취소\s*[)\]]\s*$|^\s*(승인|매출|부분)?취소\s+|\s+(승인|매출|부분)?취소\s*$/;
/** The name of a card bill's payment on a card statement (Chase: `Payment Thank You-Mobile`, `AUTOPAY`). */
const BILL_PAYMENT =
  /^(online |mobile |electronic |ach |autopay |automatic )?payment\b|payment\s*[-–]?\s*thank\s*you|thank\s*you\s*for\s*your\s*payment|^autopay\b|카드\s*결제대금|결제대금\s*입금/i;
const INCOME_WORD = /^(입금|수입|받음|deposit|credit|cr)$|입금$/i;
const EXPENSE_WORD = /^(출금|지출|지급|보냄|결제|승인|debit|dr|withdrawal|sale|purchase)$|출금$/i;

/**
 * The rows as ledger lines under a mapping. Never throws for bad data: a row that cannot be read is INVALID with
 * the reason; blank rows, repeated headers, totals and notes are SKIPPED with the reason.
 */
export function normalizeRows(
  table: StatementTable,
  mapping: ColumnMapping,
  options: NormalizeOptions,
): StatementLine[] {
  const column = (c: number | null) => (c === null || c < 0 ? [] : table.rows.map((r) => r[c] ?? ''));
  const comma = {
    amount: usesDecimalComma(column(mapping.amount)),
    withdrawal: usesDecimalComma(column(mapping.withdrawal)),
    deposit: usesDecimalComma(column(mapping.deposit)),
    foreign: usesDecimalComma(column(mapping.foreignAmount)),
    balance: usesDecimalComma(column(mapping.balance)),
  };
  const headerKeys = table.header.map(headerKey);
  const repeatedHeaderCells = Math.max(2, Math.ceil(headerKeys.filter((k) => k !== '').length / 2));
  const anchor = table.period?.to ?? options.referenceDate ?? null;
  // An OFX file names its currency (CURDEF), a header its amount column's (`Amount (USD)`, `이용금액(원)`): that, not
  // the caller's default, is the currency of amounts in rows without a currency cell.
  const amountHeader = table.header[mapping.amount ?? mapping.withdrawal ?? mapping.deposit ?? -1] ?? '';
  const named = table.currency ?? headerCurrency(amountHeader);
  const defaultCurrency = (named ?? options.defaultCurrency).trim().toUpperCase() || LOCAL_CURRENCY;
  // No local amount column at all (삼성카드 해외: the amount in the row's currency, its currency): each row's amount
  // is its foreign amount, and a row in won is a local one.
  const foreignOnly =
    mapping.amount === null &&
    mapping.withdrawal === null &&
    mapping.deposit === null &&
    mapping.foreignAmount !== null;
  const cancelFlag = mapping.status !== null && CANCEL_FLAG_HEADER.test(headerKeys[mapping.status] ?? '');
  const cardOfx = table.format === 'OFX' && table.accountType === 'CARD';
  const feeColumns = headerKeys.flatMap((k, c) => (/수수료|이자|^fees?$|fee$/.test(k) ? [c] : []));

  return table.rows.map((row, index) => {
    const blank = (): StatementLine => ({
      index,
      rowNumber: table.rowNumbers[index] ?? index + 1,
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
    });
    const line = blank();
    const cell = (c: number | null) => (c === null || c < 0 ? '' : (row[c] ?? '').trim());
    // A skipped or invalid row carries its reason only: the preview shows the row itself (table.rows[index]).
    const skip = (reason: string): StatementLine => ({ ...blank(), kind: 'SKIPPED', reason });
    const invalid = (reason: string): StatementLine => ({ ...blank(), kind: 'INVALID', reason });

    const filled = row.map((c) => c.trim()).filter((c) => c !== '');
    if (filled.length === 0) return skip('a blank row');

    line.description = collapse(cell(mapping.description)) || null;
    line.transactionId = cell(mapping.transactionId) || null;
    line.card = cell(mapping.card) || null;
    line.installmentMonths = installments(cell(mapping.installments));
    const balance = parseAmount(cell(mapping.balance), comma.balance);
    line.balance = balance ? shownNumber(balance) : null;

    // Date
    const dateCell = cell(mapping.date);
    const shape = dateShape(dateCell);
    if (!shape) {
      // (A repeated header has no date in the date column, so only such rows are compared with the header.)
      const sameAsHeader = row.filter((c, i) => headerKeys[i] !== '' && headerKey(c) === headerKeys[i]).length;
      if (sameAsHeader >= repeatedHeaderCells) return skip('a repeated header row');
      const summary = filled.find((c) => SUMMARY.test(headerKey(c)));
      if (summary) return skip(`a total or summary row ("${short(summary)}")`);
      if (filled.length === 1) return skip(`a note or section title, not a transaction ("${short(filled[0]!)}")`);
      return invalid(dateCell === '' ? 'the row has no date' : `"${short(dateCell)}" is not a date`);
    }
    const resolved = resolveDate(shape, options.dateOrder, dateCell, anchor);
    if ('error' in resolved) return invalid(resolved.error);
    line.date = resolved.date;
    line.time = resolved.time;
    if (mapping.time !== null && cell(mapping.time) !== '') {
      const time = parseTime(cell(mapping.time));
      if (time === null) return invalid(`the time "${short(cell(mapping.time))}" is not a time of day`);
      line.time = time;
    }

    // Amount: which column, which direction
    let money: Amount;
    let moneyIn: boolean;
    let moneyCell: string;
    if (mapping.amount !== null) {
      const text = cell(mapping.amount);
      moneyCell = text;
      if (text === '' && mapping.foreignAmount === null) {
        // A fee-only row (롯데카드's 카드안심서비스: only 수수료 990): say so, as the fee is not imported.
        const fee = feeColumns.find((c) => parseAmount(cell(c)) !== null);
        if (fee !== undefined) {
          return invalid(
            `the row has no amount, only a fee (${short(table.header[fee] ?? '')} ${short(cell(fee))}), which is not imported: add it by hand if it is owed`,
          );
        }
        return invalid('the row has no amount');
      }
      const parsed = parseAmount(text, comma.amount);
      if (text !== '' && !parsed) return invalid(`the amount "${short(text)}" is not a number`);
      money = parsed ?? { negative: false, whole: '0', fraction: '', currency: null };
      moneyIn = mapping.sign === 'NEGATIVE_IS_EXPENSE' ? !money.negative : false;
    } else if (foreignOnly) {
      if (cell(mapping.foreignAmount) === '') return invalid('the row has no amount');
      money = { negative: false, whole: '0', fraction: '', currency: null };
      moneyIn = false;
      moneyCell = cell(mapping.foreignAmount);
    } else {
      const out = parseAmount(cell(mapping.withdrawal), comma.withdrawal);
      const inn = parseAmount(cell(mapping.deposit), comma.deposit);
      if (cell(mapping.withdrawal) !== '' && !out)
        return invalid(`the withdrawal "${short(cell(mapping.withdrawal))}" is not a number`);
      if (cell(mapping.deposit) !== '' && !inn)
        return invalid(`the deposit "${short(cell(mapping.deposit))}" is not a number`);
      const hasOut = out !== null && !isZero(out);
      const hasIn = inn !== null && !isZero(inn);
      if (hasOut && hasIn) return invalid('the row has both a withdrawal and a deposit');
      if (!hasOut && !hasIn) {
        if (out || inn) return skip('the amount is 0');
        return invalid('the row has neither a withdrawal nor a deposit');
      }
      money = { ...(hasOut ? out! : inn!), negative: false };
      moneyIn = hasIn;
      moneyCell = cell(hasOut ? mapping.withdrawal : mapping.deposit);
    }

    // Currency: the currency column, else what the amount cells name, else the default.
    const foreignText = cell(mapping.foreignAmount);
    const foreign = foreignText === '' ? null : parseAmount(foreignText, comma.foreign);
    if (foreignText !== '' && !foreign) return invalid(`the foreign amount "${short(foreignText)}" is not a number`);
    let currency: string | null;
    const currencyCell = cell(mapping.currency);
    if (currencyCell !== '') {
      currency = currencyCode(currencyCell);
      if (!currency) return invalid(`"${short(currencyCell)}" is not a currency code`);
    } else {
      currency = foreign?.currency ?? money.currency ?? defaultCurrency;
    }
    if (foreignOnly && foreign) money = foreign;
    if (currency === LOCAL_CURRENCY) {
      if (isZero(money)) {
        if (foreign && !isZero(foreign)) return invalid('the row has a foreign amount but no currency other than KRW');
        return skip('the amount is 0');
      }
      const won = wholeUnits(money);
      if (won === null) return invalid(`the amount "${short(moneyCell)}" is not a whole number of won`);
      line.amount = Math.abs(won);
    } else {
      line.currency = currency;
      const original = foreignOnly ? money : (foreign ?? (mapping.foreignAmount === null ? money : null));
      if (!original || isZero(original)) return invalid(`the row is in ${currency} but has no amount in it`);
      line.originalAmount = decimalText(original);
      if (original !== money && !isZero(money)) {
        const won = wholeUnits(money);
        if (won === null) return invalid(`the amount "${short(moneyCell)}" is not a whole number of won`);
        line.amount = Math.abs(won);
      }
      if (original !== money && isZero(money) && mapping.amount !== null) {
        // a foreign row not yet converted: its direction is the foreign amount's sign
        moneyIn = mapping.sign === 'NEGATIVE_IS_EXPENSE' ? !original.negative : false;
        money = original;
      }
    }

    // Type and cancellation
    const status = cell(mapping.status);
    const marked =
      (status !== '' && CANCELLED.test(status) && !NOT_CANCELLED.test(status)) ||
      (cancelFlag && YES.test(status.normalize('NFKC'))) ||
      IN_DESCRIPTION.test(line.description ?? '');
    if ((mapping.amount !== null && mapping.sign === 'POSITIVE_IS_EXPENSE') || foreignOnly) {
      // A card statement: every row is spending, a negative or marked one its cancellation.
      line.type = 'EXPENSE';
      line.cancellation = marked || money.negative;
    } else {
      if (mapping.amount !== null && !money.negative && status !== '' && !marked) {
        const word = status.replace(/\s+/g, '');
        if (INCOME_WORD.test(word)) moneyIn = true;
        else if (EXPENSE_WORD.test(word)) moneyIn = false;
      }
      if (cardOfx && moneyIn && (status.toUpperCase() === 'PAYMENT' || BILL_PAYMENT.test(line.description ?? ''))) {
        // Money in on a card is a refund, except the payment of the bill: that is the bank account's expense,
        // imported from the bank's statement; here it would cancel a purchase that was never refunded.
        return skip("the payment of the card's bill (recorded from the account that paid it), not a refund");
      }
      if (cardOfx && moneyIn) {
        line.type = 'EXPENSE';
        line.cancellation = true;
      } else if (marked) {
        // Money back for a cancelled expense, or money out for a cancelled income.
        line.type = moneyIn ? 'EXPENSE' : 'INCOME';
        line.cancellation = true;
      } else {
        line.type = moneyIn ? 'INCOME' : 'EXPENSE';
      }
    }
    return line;
  });
}

/** 할부 cell: `3`, `03`, `3개월`, `할부(3개월)`, `3개월 무이자`, `1/3` (payment 1 of 3) → 3; 일시불, 0, 1, outside 2..24 → null. */
export function installments(cell: string): number | null {
  const text = cell.normalize('NFKC').trim();
  if (text === '' || /일시불|lump/i.test(text)) return null;
  const of = /(\d{1,2})\s*\/\s*(\d{1,2})/.exec(text);
  const m = of ? of[2] : /(\d{1,3})/.exec(text)?.[1];
  if (!m) return null;
  const n = Number(m);
  return n >= 2 && n <= 24 ? n : null;
}

/** A balance as the number the cell shows, fraction kept (a foreign account's `8105.30` is 8105.3). */
function shownNumber(a: Amount): number | null {
  const n = Number(decimalText(a));
  if (!Number.isFinite(n) || (a.fraction === '' && !Number.isSafeInteger(n))) return null;
  return a.negative && n !== 0 ? -n : n;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function short(text: string): string {
  const t = collapse(text);
  return t.length > 40 ? `${t.slice(0, 39)}…` : t;
}
