import { CONSUMED, type Scratch } from './scratch';

const MIN_MONTHS = 2;
const MAX_MONTHS = 24;

/** 일시불 in any dress: (일시불), 일시불/, 일시불81,400원. */
const LUMP_SUM = /\(?일시불\)?/g;

/** Instalment forms, one pattern each. */
const INSTALLMENT_FORMATS: readonly RegExp[] = [
  /할부\s?[:/(]?\s?(?<months>\d{1,2})(?![\d/:.,])\s?(?:개월)?\)?/, // 할부:12개월, 할부/11개월, 할부(11), 할부 03
  /\(?(?<months>\d{1,2})\s?개월\)?\s?(?:무이자)?\s?(?:할부)?/, // 3개월, 11개월 할부, (11개월), 3개월할부
  /\((?<months>\d{2})월\)/, // KB: 134,850원(06월)
];

const BARE_INSTALLMENT = /할부/g;

/** Reads (and consumes) the instalment; null for 일시불, for a missing or an out-of-range count. */
export function takeInstallmentMonths(scratch: Scratch): number | null {
  scratch.takeAll(LUMP_SUM);
  for (const format of INSTALLMENT_FORMATS) {
    const hit = scratch.take(format);
    if (hit) {
      scratch.takeAll(BARE_INSTALLMENT);
      const months = Number(hit.groups.months);
      return months >= MIN_MONTHS && months <= MAX_MONTHS ? months : null;
    }
  }
  scratch.takeAll(BARE_INSTALLMENT);
  return null;
}

/** Four card digits, one pattern per layout. The first applies right after the card label. */
const LAST4_AFTER_LABEL = /^\]?\s?(?:승인|취소|해외승인)?\s?(?<last4>\d{4})(?![\d,.:/*원-])/; // not a phone number: [신한카드 1544-7000]
const LAST4_FORMATS: readonly RegExp[] = [
  /\((?<last4>\d{4})\)/, // 신한카드(1054)승인, 홍*동(1234)
  /(?:신용|체크)\s(?<last4>\d{4})(?![\d,.:/*원])/, // KB Pay: 신용 1234
  /(?<=^|\n)(?<last4>\d{4})\s(?=[가-힣*]{2,5}님)/, // corporate cards: [회사명] 승인 / 9427 김*환님
  /card ending (?:in |with )?\d?(?<last4>\d{4})\b/i, // card ending in 1234, Amex "ending in 12345" ("account ending" is not a card)
  /\bCard (?<last4>\d{4})(?=\s)/, // U.S. Bank: PURCHASE SKYPASS Visa Signature® Card 2901 …
];

/** A card number shown as a mask (1*8*, (2*6*), 1234*5678*, 078501**554) or a short id in brackets ((17)). */
const CARD_MASK = /\(?(?=[\d*]*\d)(?=[\d*]*\*)[\d*]{3,}\)?/g;
const SHORT_CARD_ID_AFTER_LABEL = /^\(\d{1,3}\)/;

export function takeCardLast4(scratch: Scratch, labelEnds: readonly number[]): string | null {
  for (const labelEnd of labelEnds) {
    const afterLabel = takeAfter(scratch, labelEnd, LAST4_AFTER_LABEL);
    if (afterLabel) return afterLabel;
  }
  for (const format of LAST4_FORMATS) {
    const hit = scratch.take(format);
    if (hit?.groups.last4) return hit.groups.last4;
  }
  return null;
}

export function takeCardMasks(scratch: Scratch, labelEnds: readonly number[]): void {
  for (const labelEnd of labelEnds) takeAfter(scratch, labelEnd, SHORT_CARD_ID_AFTER_LABEL);
  scratch.takeAll(CARD_MASK);
}

function takeAfter(scratch: Scratch, index: number, pattern: RegExp): string | null {
  const match = pattern.exec(scratch.original.slice(index));
  if (!match) return null;
  const consumedUntil = index + match[0].length;
  if (scratch.text.slice(index, consumedUntil).includes('\u0000')) return null;
  scratch.consume(index, consumedUntil);
  return match.groups?.last4 ?? match[0];
}

/** Card holder: 홍*동님, *정님, ***님, 강대권님, 홍*동, 이정*. */
const HOLDER_FORMATS: readonly RegExp[] = [
  /(?:[가-힣]{1,3}\*{1,2}[가-힣]{0,2}|\*{1,3}[가-힣]{0,2}|[가-힣]{2,4})님/g,
  /(?<![가-힣*])[가-힣]\*[가-힣]{1,2}(?![가-힣*])/g,
  /(?<![가-힣*])[가-힣]{2}\*(?![가-힣*])/g,
];

export function takeHolderNames(scratch: Scratch): void {
  for (const format of HOLDER_FORMATS) scratch.takeAll(format);
}

const NOT_A_LETTER_BEFORE = String.raw`(?<![\p{L}])`;
const NOT_A_LETTER_AFTER = String.raw`(?![\p{L}])`;

/** Status words that issuers glue to the card label or digits (신한카드정상승인, 삼성0163취소, 할부(11)취소). */
const STATUS_WORDS = ['승인취소', '정상승인', '승인내역', '해외승인', '해외취소', '취소완료', '승인', '취소'];

/** Words that are never a merchant when they stand alone. */
const FILLER_WORDS = [
  '체크카드출금',
  '결제 완료',
  '결제완료',
  '결제',
  '사용',
  '체크카드',
  '체크',
  '신용',
  '인증',
  '해외',
  '이용건',
  '감사합니다',
  '알림',
  '카드',
  '완료',
  '자동결제',
  '접수',
];

/** Promotions and labels printed next to the amount: 1.0% 보너스클럽, 0.7%할인, 6TOP적립예정, (금액), (1건). */
const PROMOTION_NOISE: readonly RegExp[] = [
  /\d+(?:\.\d+)?%\s?[가-힣A-Za-z]*/g,
  /\S*적립예정/g,
  /\(금액\)/g,
  /\(\d+건\)/g,
];

/**
 * Status words are read where the issuer writes them: glued to text already read (신한카드정상승인강대권님,
 * 삼성0163취소) or standing alone. A status word followed by more letters that nobody read is the start of a
 * name ("취소전문점" is a shop), so it stays for the merchant.
 */
export function takeStatusAndFillerWords(scratch: Scratch): void {
  const words = STATUS_WORDS.join('|');
  const status = new RegExp(
    `(?<=${CONSUMED})(?:${words})|${NOT_A_LETTER_BEFORE}(?:${words})(?:${NOT_A_LETTER_AFTER}|(?=${CONSUMED}))`,
    'gu',
  );
  const filler = new RegExp(`${NOT_A_LETTER_BEFORE}(?:${FILLER_WORDS.join('|')})${NOT_A_LETTER_AFTER}`, 'gu');
  scratch.takeAll(status);
  scratch.takeAll(filler);
  for (const noise of PROMOTION_NOISE) scratch.takeAll(noise);
}
