/** Canonical issuer names. Co-branded BC cards (우리BC, 농협BC, 기업BC…) are 'BC'; 외환 and 하나SK are '하나'. */
export const CARD_COMPANIES = [
  'KB국민',
  '신한',
  '삼성',
  '현대',
  '롯데',
  '하나',
  '우리',
  'BC',
  'NH농협',
  '씨티',
  'IBK',
  '카카오뱅크',
  '토스',
  '케이뱅크',
  '수협',
  '광주',
  '전북',
  '제주',
  '우체국',
  '새마을금고',
  '신협',
] as const;

export type CardCompany = (typeof CARD_COMPANIES)[number];

export type CardNotificationKind = 'APPROVAL' | 'CANCELLATION';

export interface ParsedCardTransaction {
  ignored: false;
  kind: CardNotificationKind;
  /** One of CARD_COMPANIES, or null when the text names no known issuer. */
  cardCompany: CardCompany | null;
  /** Last four digits, only when four unmasked digits are shown. */
  cardLast4: string | null;
  /** Whole KRW, a safe positive integer; null for a foreign-currency amount or an unreadable one. */
  amount: number | null;
  /** ISO 4217 code. */
  currency: string;
  /** The foreign amount as shown, without grouping commas (e.g. '12.34'); null for KRW. */
  originalAmount: string | null;
  merchant: string | null;
  /** 2..24 when an instalment is stated; null for lump sum or when unreadable. */
  installmentMonths: number | null;
  /** ISO-8601 UTC instant of the approval time shown in the text; null when the text shows no time. */
  occurredAt: string | null;
  /** The 누적 (running total) shown in the text, whole KRW. */
  cumulativeAmount: number | null;
}

export type ParsedCardNotification = { ignored: true } | ParsedCardTransaction;

export interface ParseOptions {
  receivedAt: Date;
  /** IANA zone the text's clock times are read in. Default 'Asia/Seoul'. */
  timeZone?: string;
}
