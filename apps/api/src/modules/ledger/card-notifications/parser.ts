import { hasApprovalSignal, isCancellation, isNeverAnApproval, isTitledPushWithoutApprovalWord } from './classify';
import { resolveOccurredAt, takeWrittenDateTime } from './datetime';
import { findIssuerLabel, findLabelOccurrences, type IssuerLabel } from './issuers';
import { takeFieldLabels, takeNamedMerchant } from './labels';
import { type Anchor, englishMerchant, pickMerchant } from './merchant';
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
  const namedMerchant = takeNamedMerchant(scratch);
  const cardLast4 = takeCardLast4(scratch, labelEnds);
  const written = takeWrittenDateTime(scratch);
  const cumulativeAmount = takeCumulativeAmount(scratch);
  const money = takeTransactionMoney(scratch);
  if (!money) return null;
  const installmentMonths = takeInstallmentMonths(scratch);
  takeCardMasks(scratch, labelEnds);
  takeStatusAndFillerWords(scratch);
  takeHolderNames(scratch);
  takeFieldLabels(scratch);
  const anchors = [written.span, money].filter((anchor): anchor is Anchor => anchor !== undefined);

  return {
    ignored: false,
    kind: isCancellation(normalized, money.negative) ? 'CANCELLATION' : 'APPROVAL',
    cardCompany: label?.company ?? null,
    cardLast4,
    amount: wholeWon(money),
    currency: money.currency,
    originalAmount: originalAmountOf(money),
    merchant: namedMerchant ?? readMerchant(normalized, scratch, label, anchors),
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

function readMerchant(
  normalized: string,
  scratch: Scratch,
  label: IssuerLabel | null,
  anchors: readonly Anchor[],
): string | null {
  const english = englishMerchant(normalized);
  if (english !== null || !containsHangul(normalized)) return english;
  return pickMerchant(scratch, anchors, headerLines(normalized, label));
}

const AMOUNT_OR_CLOCK = /\d\s?원|\d{1,2}[/:.]\d{2}|\d{1,2}월|[A-Z]{3}\s?\d|\$\s?\d/;
/** A sender's bracketed header opening the text: "[회사명] 승인", "[카카오뱅크] 카드결제", "[MY COMPANY] 해외승인". */
const BRACKETED_HEADER = /^\[[^\]\n]+\]/;

/**
 * Lines that name the card or the sender, never the merchant, when they carry no amount and no time: the
 * line of the card label ("현대 ZERO 승인", "네이버 현대카드 승인", "현대 대한항공030 승인"), a bracketed
 * header on the first line ("[회사명] 승인") and the title of a push without approval word ("온라인쇼핑").
 */
function headerLines(normalized: string, label: IssuerLabel | null): Set<number> {
  const lines = normalized.split('\n');
  const excluded = new Set<number>();
  if (label) {
    const lineIndex = normalized.slice(0, label.hit.start).split('\n').length - 1;
    if (!AMOUNT_OR_CLOCK.test(lines[lineIndex] ?? '')) excluded.add(lineIndex);
  }
  const first = lines[0] ?? '';
  if (BRACKETED_HEADER.test(first) && !AMOUNT_OR_CLOCK.test(first)) excluded.add(0);
  if (!label && isTitledPushWithoutApprovalWord(normalized) && !AMOUNT_OR_CLOCK.test(first)) excluded.add(0);
  return excluded;
}

function originalAmountOf(money: TransactionMoney): string | null {
  return money.currency === 'KRW' ? null : money.digits;
}
