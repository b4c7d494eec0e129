import type { CardCompany, ParsedCardNotification, ParsedCardTransaction } from '../types';

export type Channel = 'SMS' | 'PUSH';

/** Layout families of issue 19 (texts the parser misread before the structural merchant rule, CN10). */
export type Family =
  | 'labelled' // 1. one label line, one value line (금액 / 12,300원 / 사용처 / 스타벅스), or "가맹점 : …"
  | 'bank-app' // 2. [카카오뱅크] 카드결제 / name(1234) / time / amount / merchant / balance
  | 'pay-app' // 3. "…에서 2,500원을 결제했어요" sentences
  | 'corporate' // 4. [회사명] 승인 / 1234 name / … and foreign corporate approvals
  | 'extra-lines' // 5. local-currency lines, unmasked names, merchants containing 취소, headers without approval word
  | 'product-name'; // 6. card product names that name the issuer (LOCA, 현대 … M) and international English alerts

export interface CorpusEntry {
  text: string;
  /** The family of issue 19 the text belongs to, if any. */
  family?: Family;
  /** The issuer or app a text names when it is not one of CARD_COMPANIES (카카오페이, American Express…). */
  issuer?: string;
  /** Where the text was published (repository + path, or URL); says so when the text was built from a published layout. */
  source: string;
  receivedAt: Date;
  channel: Channel;
  expected: ParsedCardNotification;
}

/** 'YYYY-MM-DD HH:mm' read as Seoul wall-clock time (Korea has had no DST since 1988). */
export function seoul(local: string): Date {
  return new Date(`${local.replace(' ', 'T')}:00+09:00`);
}

interface TransactionFields {
  company: CardCompany | null;
  last4?: string;
  amount: number | null;
  currency?: string;
  original?: string;
  merchant: string | null;
  months?: number;
  /** Seoul wall-clock 'YYYY-MM-DD HH:mm', or null when the text shows no time. */
  at: string | null;
  cumulative?: number;
}

export function approval(fields: TransactionFields): ParsedCardTransaction {
  return {
    ignored: false,
    kind: 'APPROVAL',
    cardCompany: fields.company,
    cardLast4: fields.last4 ?? null,
    amount: fields.amount,
    currency: fields.currency ?? 'KRW',
    originalAmount: fields.original ?? null,
    merchant: fields.merchant,
    installmentMonths: fields.months ?? null,
    occurredAt: fields.at === null ? null : seoul(fields.at).toISOString(),
    cumulativeAmount: fields.cumulative ?? null,
  };
}

export function cancellation(fields: TransactionFields): ParsedCardTransaction {
  return { ...approval(fields), kind: 'CANCELLATION' };
}

export const IGNORED: ParsedCardNotification = { ignored: true };

export function sms(text: string, source: string, received: string, expected: ParsedCardNotification): CorpusEntry {
  return { text, source, receivedAt: seoul(received), channel: 'SMS', expected };
}

export function push(text: string, source: string, received: string, expected: ParsedCardNotification): CorpusEntry {
  return { text, source, receivedAt: seoul(received), channel: 'PUSH', expected };
}

/** Tags entries with their family (and, for issuers outside CARD_COMPANIES, the issuer or app they name). */
export function inFamily(family: Family, entries: CorpusEntry[], issuer?: string): CorpusEntry[] {
  return entries.map((entry) => (issuer ? { ...entry, family, issuer } : { ...entry, family }));
}
