import type { ColumnMapping } from './types.js';

/** The fields a header cell can name (the mapping's keys but `sign`). */
export type Field = Exclude<keyof ColumnMapping, 'sign'>;

/**
 * A header cell as compared: NFKC, lower case, no whitespace, no unit in brackets (`이용금액(원)` → `이용금액`,
 * `Amount (KRW)` → `amount`).
 */
export function headerKey(cell: string): string {
  return cell
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, '')
    .replace(/[([](원|₩|krw|won|\\)[)\]]/g, '')
    .replace(/[.:*]+$/, '');
}

interface Rule {
  field: Field | null;
  /** higher wins when several columns name the same field */
  rank: number;
  test: RegExp;
}

/**
 * Header names, Korean card and bank exports and English ones, in the order they are tried: the first rule that
 * matches a cell names it (`field: null` marks a column that looks like one but is not: 할인금액 is no amount).
 */
const RULES: Rule[] = [
  { field: null, rank: 0, test: /할인|수수료|포인트|이자|적립|누적|한도|잔여|결제후잔액|결제예정|청구예정|가능/ },
  { field: 'balance', rank: 10, test: /잔액|잔고|^(running)?bal(ance)?$|balance|saldo$/ },
  {
    field: 'amount',
    rank: 10,
    test: /원화.*금액|금액.*원화|^원화$|^국내이용금액$|krwamount|amount(in)?krw|localcurrencyamount/,
  },
  {
    field: 'foreignAmount',
    rank: 10,
    test: /(현지|외화|해외현지).*(금액|액|이용)|금액.*(현지|외화)|^외화$|^(foreign|original|orig)(currency)?amount|amount\(?(foreign|original|fx)/,
  },
  {
    field: 'currency',
    rank: 10,
    test: /^(결제|현지|이용|거래)*통화(코드|구분|명)?$|^currency(code)?$|^ccy$|^(valuta|währung|devise|moneda)$/,
  },
  { field: 'time', rank: 10, test: /^(이용|거래|승인|사용|매출)?(시간|시각)$|^(transaction)?time$/ },
  { field: 'date', rank: 10, test: /^(이용|거래|승인|사용|매출)(일자|일|날짜|일시|년월일)$/ },
  // The day of the transaction (the card used) before the day the bank booked it, before the value day.
  { field: 'date', rank: 9, test: /^(transaction|trans\.?|txn)date(time)?$|^transaktions(dag|datum)$/ },
  { field: 'date', rank: 8, test: /^(일자|날짜|일시|거래일|년월일)$|^date(time)?$/ },
  {
    field: 'date',
    rank: 6,
    test: /^(post(ed|ing)?|booking|book)date$|^(매입|접수|처리)(일자|일)$|^bokförings(dag|datum)$/,
  },
  { field: 'date', rank: 4, test: /^valuedate$|^(결제|청구|입금)(일자|일)$|^valuta(dag|datum)$/ },
  {
    field: 'withdrawal',
    rank: 10,
    test: /^(출금|지급|지출|인출|찾으신)(금액|액)?$|^(출금|지급|지출)\S*금액$|^withdrawals?(amount)?$|^debits?(amount)?$|^moneyout$|^paidout$/,
  },
  {
    field: 'deposit',
    rank: 10,
    test: /^(입금|수입|맡기신)(금액|액)?$|^입금\S*금액$|^deposits?(amount)?$|^credits?(amount)?$|^moneyin$|^paidin$/,
  },
  // 이용금액 (what was paid) before 승인금액 (what was authorised) where a file has both (현대카드: a discount between).
  { field: 'amount', rank: 10, test: /^(이용|국내)금액$|^이용총액$|^(transaction)?amount$|^belopp$/ },
  { field: 'amount', rank: 9, test: /^(승인|거래|사용|매출)금액$|^총액$/ },
  { field: 'amount', rank: 8, test: /^금액$|^(이용|승인|거래|사용|매출)?금액|amount/ },
  { field: 'amount', rank: 5, test: /^(결제|청구)(금액|원금)|^(sum|value)$/ },
  {
    field: 'transactionId',
    rank: 10,
    test: /승인번호|거래(고유)?번호|^(transaction|trans|txn|reference|ref)\.?(id|no|number|#)?$|^fitid$|^(transferwise|wise|transfer|payment)?id$/,
  },
  // 할부개월 (the months) before 일시불할부구분 (only which kind) where a file has both (삼성카드).
  { field: 'installments', rank: 10, test: /할부(개월|기간|월수|횟수)|^(number(of)?)?installments?$/ },
  { field: 'installments', rank: 8, test: /할부|installments?/ },
  { field: 'installments', rank: 4, test: /^(이용|결제)(구분|방법)$/ },
  { field: 'card', rank: 10, test: /카드번호|^이용카드|^카드(명)?$|계좌번호|^card(number|no)?$|^account(number|no)?$/ },
  // A column that marks cancellations before one that names the kind of movement before a bare 구분 (카카오뱅크 has
  // 구분 입금/출금 and 거래구분 체크카드취소: the latter says the cancellation).
  { field: 'status', rank: 12, test: /취소(여부|구분|유무)/ },
  { field: 'status', rank: 10, test: /^(승인|매출|거래|처리)(상태|구분)$|^상태$|^status$/ },
  { field: 'status', rank: 6, test: /^(입출금|입출|거래)(구분|유형|종류)$|^(transaction)?type$|^구분명?$/ },
  { field: 'description', rank: 10, test: /가맹점|^(이용|사용)처$|^상호(명)?$|^merchant(name)?$|^payee$/ },
  {
    field: 'description',
    rank: 8,
    test: /^(거래|기재)?내용$|^(받는|보낸|받으신|보내신)분|^거래처$|^상대방|^거래상대|^description$|^details$|^narrative$|^(transaction)?description$|^name$|^beskrivning$/,
  },
  { field: 'description', rank: 6, test: /^적요$|^거래기록사항$/ },
  { field: 'description', rank: 4, test: /^(메모|비고)$|^memo$|^notes?$/ },
];

export interface Naming {
  field: Field;
  rank: number;
}

const cache = new Map<string, Naming | null>();

/** The field a header cell names, or null. */
export function nameOf(cell: string): Naming | null {
  const key = headerKey(cell);
  if (key === '') return null;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const rule = RULES.find((r) => r.test.test(key));
  const naming = rule?.field ? { field: rule.field, rank: rule.rank } : null;
  if (cache.size < 10_000) cache.set(key, naming);
  return naming;
}

/** For each field the column whose header names it best (the leftmost on a tie). */
export function namedColumns(header: readonly string[]): Partial<Record<Field, number>> {
  const best: Partial<Record<Field, { column: number; rank: number }>> = {};
  header.forEach((cell, column) => {
    const naming = nameOf(cell);
    if (!naming) return;
    const current = best[naming.field];
    if (!current || naming.rank > current.rank) best[naming.field] = { column, rank: naming.rank };
  });
  const out: Partial<Record<Field, number>> = {};
  for (const [field, v] of Object.entries(best) as [Field, { column: number }][]) out[field] = v.column;
  return out;
}
