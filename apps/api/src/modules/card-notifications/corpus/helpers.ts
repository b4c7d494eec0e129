import type { CardCompany, ParsedCardNotification, ParsedCardTransaction } from '../types';

export type Channel = 'SMS' | 'PUSH';

export interface CorpusEntry {
  text: string;
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
