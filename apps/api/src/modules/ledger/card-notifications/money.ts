import { findFirst, type RegexHit, type Scratch } from './scratch';

export interface TransactionMoney {
  currency: string;
  /** Digits as written, grouping commas removed. */
  digits: string;
  negative: boolean;
  /** Where the amount was written, for the merchant's position rule. */
  start: number;
  end: number;
}

const NUMBER = String.raw`\d[\d,]*(?:\.\d+)?`;
const CURRENCY_CODES = 'USD|JPY|EUR|GBP|CNY|RMB|THB|VND|HKD|SGD|AUD|CAD|NZD|CHF|PHP|TWD|MYR|IDR|KRW';
const SYMBOLS: Record<string, string> = {
  US$: 'USD',
  $: 'USD',
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
  '₩': 'KRW',
  달러: 'USD',
  엔: 'JPY',
  유로: 'EUR',
  위안: 'CNY',
  RMB: 'CNY',
};

/** Running totals: 누적 354,220원, 누적:354,220원, 누적금액679,780원, 누적액 1,939,380, 누계 70,193원, *누적\n2,827,070원. */
const CUMULATIVE = /(?:총\s?)?(?:누적|누계)(?:금액|사용액|액)?\s*[:-]?\s*(?<value>\d[\d,]*)\s?원?/;

/** Balances and limits are not running totals: 잔액, 지급가능액, 이용가능한도, 한도. */
const BALANCE = /(?:잔액|지급가능액|이용가능(?:금액|한도)|잔여한도|한도|가능액)\s*:?\s*-?\d[\d,]*\s?원?/g;

/** Part of the amount paid from a local-currency or voucher balance: "(지역화폐 8,000원 사용)". Not the paid amount. */
const LOCAL_CURRENCY_USE = /\((?:지역화폐|지역상품권|온누리상품권|[가-힣]{1,6}페이)\s?-?\d[\d,]*\s?원\s?사용\)/g;

/** Rewards next to an amount (6원 캐시백, 1,000원 적립) are not the paid amount. */
const REWARD = /\d[\d,]*\s?원\s?(?:캐시백|적립|할인)/g;

/** Foreign amounts, one pattern per written form. */
const FOREIGN_FORMATS: readonly RegExp[] = [
  new RegExp(String.raw`(?<![A-Za-z])(?<code>${CURRENCY_CODES})\s?(?<sign>-)?\s?(?<value>${NUMBER})`), // USD 12.34, USD89.53, JPY 1,280
  new RegExp(String.raw`(?<sign>-)?(?<value>${NUMBER})\s?\((?<code>US\$|${CURRENCY_CODES})\)`), // 475.54(US$)
  new RegExp(String.raw`(?<code>US\$|\$|€|£|¥|₩)\s?(?<sign>-)?(?<value>${NUMBER})`), // US$12.34, $3.01
  new RegExp(
    String.raw`(?<sign>-)?(?<value>${NUMBER})\s?(?<code>달러|유로|위안|(?<![가-힣])엔|${CURRENCY_CODES})(?![A-Za-z])`,
  ), // 12.34달러, 12.34 USD
];

/** Won amounts: 12,350원, 5000원, -1,368,930원, KRW 12,000 is read by FOREIGN_FORMATS. */
const WON = /(?<![\d,])(?<!\d\.)(?<sign>-)?(?<value>\d{1,3}(?:,\d{3})+|\d+)\s?원/;

/** Some bank-side layouts print the amount without 원 ("체크카드출금\n2,400", "-45,700 철도승차권발매"). */
const BARE_GROUPED_NUMBER = /(?<![\d/:.*-])(?<sign>-)?(?<value>\d{1,3}(?:,\d{3})+)(?![\d,/:.*원])/;

/** Reads (and consumes) the 누적 total; null when absent or not a safe integer. Balances are consumed and dropped. */
export function takeCumulativeAmount(scratch: Scratch): number | null {
  const hit = scratch.take(CUMULATIVE);
  scratch.takeAll(BALANCE);
  scratch.takeAll(REWARD);
  scratch.takeAll(LOCAL_CURRENCY_USE);
  return hit ? toSafeWholeNumber(hit.groups.value) : null;
}

/** Reads (and consumes) the paid amount. Run after takeCumulativeAmount so totals are not taken for it. */
export function takeTransactionMoney(scratch: Scratch): TransactionMoney | null {
  for (const format of FOREIGN_FORMATS) {
    const hit = scratch.take(format);
    if (hit) return fromHit(hit, codeOf(hit.groups.code));
  }
  const won = scratch.take(WON) ?? takeBareAmount(scratch);
  return won ? fromHit(won, 'KRW') : null;
}

function takeBareAmount(scratch: Scratch) {
  if (findFirst(scratch.original, /\d\s?원/)) return null;
  return scratch.take(BARE_GROUPED_NUMBER);
}

function codeOf(written: string | undefined): string {
  if (!written) return 'KRW';
  return SYMBOLS[written] ?? written;
}

function fromHit(hit: RegexHit, currency: string): TransactionMoney {
  const { groups } = hit;
  const digits = (groups.value ?? '').replaceAll(',', '');
  return { currency, digits, negative: groups.sign === '-', start: hit.start, end: hit.end };
}

/** Whole KRW as a safe positive integer, else null. */
export function wholeWon(money: TransactionMoney): number | null {
  if (money.currency !== 'KRW') return null;
  // "KRW 13,500.00": a won amount printed with zero decimals is still whole.
  const value = toSafeWholeNumber(money.digits.replace(/\.0+$/, ''));
  return value !== null && value > 0 ? value : null;
}

function toSafeWholeNumber(written: string | undefined): number | null {
  if (!written) return null;
  const digits = written.replaceAll(',', '');
  if (!/^\d+$/.test(digits)) return null;
  const value = Number(digits);
  return Number.isSafeInteger(value) ? value : null;
}
