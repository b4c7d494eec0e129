import { hasApprovalSignal, isCancellation, isNeverAnApproval } from './classify';
import { resolveOccurredAt, takeWrittenDateTime } from './datetime';
import { findIssuerLabel, findLabelOccurrences, type IssuerLabel } from './issuers';
import { englishMerchant, pickMerchant } from './merchant';
import { type TransactionMoney, takeCumulativeAmount, takeTransactionMoney, wholeWon } from './money';
import { containsHangul, normalizeNotification } from './normalize';
import { Scratch } from './scratch';
import {
  takeCardLast4,
  takeCardMasks,
  takeHolderNames,
  takeInstallmentMonths,
  takeStatusAndFillerWords,
} from './tokens';
import type { ParsedCardNotification, ParseOptions } from './types';

export type { CardCompany, ParsedCardNotification, ParsedCardTransaction, ParseOptions } from './types';
export { CARD_COMPANIES } from './types';

const DEFAULT_TIME_ZONE = 'Asia/Seoul';
/** Card notices are a few hundred characters; longer input is not one, and is not worth scanning. */
const MAX_TEXT_LENGTH = 2000;
const IGNORED: ParsedCardNotification = Object.freeze({ ignored: true });

/**
 * Reads a card approval or cancellation out of an SMS or app-push text. Pure: no I/O, never throws
 * on any text. Returns `{ ignored: true }` for texts that report no card approval.
 */
export function parseCardNotification(text: string, options: ParseOptions): ParsedCardNotification {
  if (text.length > MAX_TEXT_LENGTH) return IGNORED;
  const normalized = normalizeNotification(text);
  if (normalized.length === 0 || isNeverAnApproval(normalized)) return IGNORED;
  const label = findIssuerLabel(normalized);
  if (!hasApprovalSignal(normalized, label !== null)) return IGNORED;

  return readTransaction(normalized, label, options) ?? IGNORED;
}

/** Reads the fields in an order where each reader leaves the others less to confuse them with. */
function readTransaction(
  normalized: string,
  label: IssuerLabel | null,
  options: ParseOptions,
): ParsedCardNotification | null {
  const scratch = new Scratch(normalized);
  const labelEnds = label ? takeLabels(scratch, label) : [];
  const cardLast4 = takeCardLast4(scratch, labelEnds);
  const written = takeWrittenDateTime(scratch);
  const cumulativeAmount = takeCumulativeAmount(scratch);
  const money = takeTransactionMoney(scratch);
  if (!money) return null;
  const installmentMonths = takeInstallmentMonths(scratch);
  takeCardMasks(scratch, labelEnds);
  takeStatusAndFillerWords(scratch);
  takeHolderNames(scratch);

  return {
    ignored: false,
    kind: isCancellation(normalized, money.negative) ? 'CANCELLATION' : 'APPROVAL',
    cardCompany: label?.company ?? null,
    cardLast4,
    amount: wholeWon(money),
    currency: money.currency,
    originalAmount: originalAmountOf(money),
    merchant: readMerchant(normalized, scratch, label),
    installmentMonths,
    occurredAt: resolveOccurredAt(written, options.receivedAt, options.timeZone ?? DEFAULT_TIME_ZONE),
    cumulativeAmount,
  };
}

/** Consumes every label of the issuer; returns where each ends (card digits follow a label). */
function takeLabels(scratch: Scratch, label: IssuerLabel): number[] {
  const occurrences = findLabelOccurrences(scratch.original, label.company);
  for (const hit of occurrences) scratch.consume(hit.start, hit.end);
  return occurrences.map((hit) => hit.end);
}

function readMerchant(normalized: string, scratch: Scratch, label: IssuerLabel | null): string | null {
  if (!containsHangul(normalized)) return englishMerchant(normalized);
  return pickMerchant(scratch, headerOnlyLine(normalized, label));
}

const AMOUNT_OR_CLOCK = /\d\s?원|\d{1,2}[/:.]\d{2}|\d{1,2}월|[A-Z]{3}\s?\d|\$\s?\d/;

/** The line of the card label when it carries no amount and no time (a heading such as "현대 ZERO 승인"). */
function headerOnlyLine(normalized: string, label: IssuerLabel | null): number | null {
  if (!label) return null;
  const lineIndex = normalized.slice(0, label.hit.start).split('\n').length - 1;
  const line = normalized.split('\n')[lineIndex] ?? '';
  return AMOUNT_OR_CLOCK.test(line) ? null : lineIndex;
}

function originalAmountOf(money: TransactionMoney): string | null {
  return money.currency === 'KRW' ? null : money.digits;
}
