import { containsHangul } from './normalize';
import type { Fragment, Scratch } from './scratch';

/** Punctuation that issuers put between fields (일시불/ 56,050원/승인/ …, 김보람님.11/13 …). Brackets are kept: "(주)…". */
const EDGE_PUNCTUATION = /^[\s.,/:;~\-·•▶◆]+|[\s.,/:;~\-·•▶◆]+$/g;
const SYMBOLS_ONLY = /^[^\p{L}\p{N}]*$/u;
const DIGITS_ONLY = /^[\d\s,.:-]+$/;

/** Where the paid amount and the approval date or time were written. */
export interface Anchor {
  start: number;
  end: number;
}

/**
 * The merchant is what no other reader took, chosen by its position relative to the amount and the date or
 * time (CN10), never by a list of shops:
 * 1. the first fragment after both of them (신한 "…원(일시불)10/13 15:48 가톨릭대병원", KB "…\n09/02 16:13\n11번가");
 * 2. else the first fragment before both (롯데 "스타벅스\n12,300원 승인\n…", Toss "스타벅스 홍대입구 6,100원 결제");
 * 3. else the first one between them (KB app "12,300원 (일시불)\n스타벅스\n고객명\n…\n04/24 13:45").
 * So a holder's name between the card label and the amount (홍길동, 가나다) or a header line never wins over
 * the line after the amount and time. Lines in `excludedLines` (a card label line without amount or time, a
 * bracketed header such as "[회사명] 승인") are never the merchant.
 */
export function pickMerchant(
  scratch: Scratch,
  anchors: readonly Anchor[],
  excludedLines: ReadonlySet<number>,
): string | null {
  const candidates = scratch
    .fragments()
    .filter((fragment) => !excludedLines.has(fragment.line))
    .map((fragment) => ({ ...fragment, text: fragment.text.replace(EDGE_PUNCTUATION, '').trim() }))
    .filter((fragment) => !SYMBOLS_ONLY.test(fragment.text) && !DIGITS_ONLY.test(fragment.text));
  if (anchors.length === 0) return candidates[0]?.text ?? null;
  const firstStart = Math.min(...anchors.map((anchor) => anchor.start));
  const lastEnd = Math.max(...anchors.map((anchor) => anchor.end));
  const after = (fragment: Fragment) => fragment.start >= lastEnd;
  const before = (fragment: Fragment) => fragment.end <= firstStart;
  const chosen = candidates.find(after) ?? candidates.find(before) ?? candidates[0];
  return chosen?.text ?? null;
}

/** English alerts name the merchant after "at": "A $3.01 transaction was made at BP#1234E on card ending in 1234." */
const ENGLISH_MERCHANT = /\bat\s(?<merchant>.+?)(?=\s(?:on|was|for)\s|\.(?:\s|$)|$)/;

/** U.S. Bank names it between the card digits and the amount: "PURCHASE SKYPASS Visa Signature® Card 2901 BAB Great Mall $44.84." */
const CARD_THEN_MERCHANT = /^PURCHASE\s.+?\sCard\s\d{4}\s(?<merchant>.+?)\s[$€£¥]\s?\d[\d,]*(?:\.\d+)?\.?$/;

/** The merchant of an English alert, or of a U.S. Bank purchase line whatever its script; null otherwise. */
export function englishMerchant(text: string): string | null {
  const cardThenMerchant = CARD_THEN_MERCHANT.exec(text)?.groups?.merchant?.trim();
  if (cardThenMerchant) return cardThenMerchant;
  if (containsHangul(text)) return null;
  return ENGLISH_MERCHANT.exec(text)?.groups?.merchant?.trim() ?? null;
}
