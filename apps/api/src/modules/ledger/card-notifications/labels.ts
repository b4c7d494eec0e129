import type { Scratch } from './scratch';

/**
 * Field labels of labelled layouts (알림톡 and multi-line SMS): a label alone on its line, its value on the
 * next line (금액 / 12,300원 / 사용처 / 스타벅스), or "label : value" on one line (가맹점명 : 쿠팡). Labels are
 * structure, never values (CN10). Bullets (◆, -, •) may precede them.
 */
const BULLET = String.raw`(?<=^|\n)[ \t]*(?:[◆◇•·▶■□*-][ \t]*)?`;

/** Labels that name the merchant. */
const MERCHANT_LABEL = '(?:가맹점명?|이용가맹점|사용처|이용처|상호명?)';

/** Labels of the other fields, read by their own readers; the label word itself is dropped. */
const FIELD_LABELS = [
  '(?:사용|승인|취소|이용|결제|거래)?금액',
  '(?:이용)?카드',
  '(?:손님|고객|회원)명',
  '거래(?:종류|구분|시간|일시)',
  '(?:승인|취소|이용)(?:시각|일시|일자)',
  '일시',
  '이용현황',
].join('|');

const MERCHANT_SAME_LINE = new RegExp(`${BULLET}${MERCHANT_LABEL}[ \\t]*:[ \\t]*(?<value>[^\\n]+)`);
const MERCHANT_NEXT_LINE = new RegExp(`${BULLET}${MERCHANT_LABEL}[ \\t]*\\n(?<value>[^\\n]+)`);
const FIELD_LABEL = new RegExp(`${BULLET}(?:${FIELD_LABELS})(?:[ \\t]*:|[ \\t]*(?=\\n|$))`, 'g');

/**
 * Pay-app sentences name the merchant before the "에서" that directly precedes the amount:
 * "주식회사 카카오에서 2,500원을 결제했어요", "바다에서 온 횟집에서 38,000원을 결제했어요", "스타벅스에서 5,000원 결제".
 */
const SENTENCE_MERCHANT = /(?<=^|\n)(?<value>[^\n]+)에서\s?(?=-?\d[\d,]*\s?원)/;

/** The pay apps' fixed phrases around the sentence: "결제가 완료되었어요", "원을 결제했어요.", "결제 취소했어요". */
const PAY_APP_PHRASES: readonly RegExp[] = [
  /결제가\s?(?:완료|취소)되었어요\.?/g,
  /[을를]?\s?결제(?:\s?취소)?했어요\.?/g,
];

/** Reads (and consumes) a merchant that a label or a pay-app sentence names; null when the text has neither. */
export function takeNamedMerchant(scratch: Scratch): string | null {
  for (const format of [MERCHANT_SAME_LINE, MERCHANT_NEXT_LINE, SENTENCE_MERCHANT]) {
    const hit = scratch.take(format);
    const value = hit?.groups.value?.trim();
    if (value) return value;
  }
  return null;
}

/** Consumes the label words of the other fields and the pay apps' phrases, which are never the merchant. */
export function takeFieldLabels(scratch: Scratch): void {
  scratch.takeAll(FIELD_LABEL);
  for (const phrase of PAY_APP_PHRASES) scratch.takeAll(phrase);
}
