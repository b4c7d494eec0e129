/** Texts that are never a card approval, whatever else they contain. */
const NOT_AN_APPROVAL: readonly RegExp[] = [
  /[[(]광고[\])]|^광고/, // advertising
  /인증\s?번호|인증\s?코드|verification code|\bOTP\b/i, // one-time codes
  /결제\s?예정|결제일|결제금액\s?\(|결제\s?대금|청구\s?(?:금액|예정|안내)|이용대금|명세서|납부\s?(?:예정|안내|금액)/, // bills
  /승인\s?거절|거절|결제\s?실패|declined/i, // declined: nothing was spent
  /(?<!체크카드)출금|입금|이체|송금|인출|(?<![가-힣])지급(?!가능)|\bACH\b/, // bank account movements
  /주문\s?완료/, // a shop's order receipt, not the issuer's approval
  /요율|단가\s?안내/, // carrier tariff notices
];

/** Point, mileage and promotion notices, unless they also report an approval. */
const NOTICE_WITHOUT_APPROVAL = /포인트|마일리지|이벤트|혜택|무이자|수신거부/;

const APPROVAL_WORDS =
  /승인|사용|결제|일시불|할부|개월|체크카드출금|누적|누계|해외|approved|purchase|transaction|spent|charged/i;

/** Old layouts print no status word: "삼성카드\n04/30 09:58\n…\n63,650원". A card label with a date is enough. */
const CARD_WORD = /카드|체크|BC/;
const DATE_MENTION = /\d{1,2}\/\d{1,2}|\d{1,2}월\s?\d{1,2}일|\d{1,2}:\d{2}/;

export function isNeverAnApproval(text: string): boolean {
  if (NOT_AN_APPROVAL.some((pattern) => pattern.test(text))) return true;
  return NOTICE_WITHOUT_APPROVAL.test(text) && !/승인/.test(text);
}

/**
 * Card-app pushes without any approval word: a title line, the merchant, the amount alone on its line and the
 * full date and time ("온라인쇼핑\nCJCGV(씨제이씨지브이)\n11,400원\n2026.09.30 19:10:30"). The first line is then a
 * title, never the merchant (CN13).
 */
const AMOUNT_LINE = /(?<=^|\n)\d{1,3}(?:,\d{3})*원(?=\n|$)/;
const FULL_DATE_TIME = /(?:20\d{2}[./-])?\d{1,2}[./-]\d{1,2}\.?\s\d{1,2}:\d{2}/;

export function isTitledPushWithoutApprovalWord(text: string): boolean {
  return !APPROVAL_WORDS.test(text) && AMOUNT_LINE.test(text) && FULL_DATE_TIME.test(text) && text.includes('\n');
}

export function hasApprovalSignal(text: string, hasCardLabel: boolean): boolean {
  if (APPROVAL_WORDS.test(text) || isTitledPushWithoutApprovalWord(text)) return true;
  return hasCardLabel && CARD_WORD.test(text) && DATE_MENTION.test(text);
}

/**
 * A cancellation status, not a word inside a merchant name: 취소 standing alone (취소, [승인취소], 카드결제취소\n),
 * glued after 승인, or followed by the verb or noun of a status (취소완료, 취소되었어요, 취소했어요, 취소금액, 취소일시).
 * "취소전문점" is a shop: 취소 followed by other letters is part of a name (CN10).
 */
const CANCELLATION_WORDS =
  /승인\s?취소|취소(?![\p{L}])|취소(?=완료|되|됐|했|처리|승인|금액|일시|내역|접수)|환불(?![\p{L}])|cancel|refund|revers/iu;

export function isCancellation(text: string, negativeAmount: boolean): boolean {
  return negativeAmount || CANCELLATION_WORDS.test(text);
}
