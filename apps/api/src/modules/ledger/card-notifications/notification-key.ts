import { createHash } from 'node:crypto';
import type { ParsedCardTransaction } from './types.js';

/** The de-duplication key of a notification, and what an approval's key starts with (to find it again). */
export interface NotificationKeys {
  key: string;
  /** The key prefix of the approval this transaction is, or cancels: same card, amount and merchant. */
  approvalPrefix: string;
}

const VERSION = 'v1';
const KIND_CODE = { APPROVAL: 'A', CANCELLATION: 'C' } as const;

/** A company's legal-form marks are not part of the merchant: (주)인터파크 and 인터파크 are one shop. */
const LEGAL_FORM = /\(주\)|\(유\)|주식회사|유한회사/g;

/** The merchant as a key: legal forms, case, spacing and punctuation do not tell two shops apart. */
export function merchantKeyOf(merchant: string | null): string {
  return (merchant ?? '')
    .normalize('NFKC')
    .replace(LEGAL_FORM, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/** `22.00` and `22` are one amount. */
function plainDecimal(decimal: string): string {
  return decimal.includes('.') ? decimal.replace(/\.?0+$/, '') : decimal;
}

function moneyKeyOf(parsed: ParsedCardTransaction): string {
  return parsed.originalAmount === null
    ? `${parsed.currency}:${parsed.amount}`
    : `${parsed.currency}:${plainDecimal(parsed.originalAmount)}`;
}

/** The approval minute (UTC); a text without a time falls back to the minute it was received. */
function minuteOf(parsed: ParsedCardTransaction, receivedAt: Date): string {
  return parsed.occurredAt ? parsed.occurredAt.slice(0, 16) : `r${receivedAt.toISOString().slice(0, 16)}`;
}

/**
 * Keys from what a notification says, not how it was sent: issuer, card digits, amount (or currency and
 * foreign amount), merchant and approval minute. The same approval by SMS and by push, or sent twice, has
 * one key; its text and receipt time do not count. The card and money part is hashed (no merchant name or
 * card digits in the key, fixed length).
 */
export function notificationKeys(parsed: ParsedCardTransaction, receivedAt: Date): NotificationKeys {
  const what = [parsed.cardCompany ?? '', parsed.cardLast4 ?? '', moneyKeyOf(parsed), merchantKeyOf(parsed.merchant)];
  const digest = createHash('sha256').update(what.join('\u001f')).digest('base64url').slice(0, 22);
  return {
    key: `${VERSION}:${KIND_CODE[parsed.kind]}:${digest}:${minuteOf(parsed, receivedAt)}`,
    approvalPrefix: `${VERSION}:${KIND_CODE.APPROVAL}:${digest}:`,
  };
}
