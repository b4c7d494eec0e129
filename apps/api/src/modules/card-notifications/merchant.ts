import { containsHangul } from './normalize';
import type { Scratch } from './scratch';

/** Punctuation that issuers put between fields (일시불/ 56,050원/승인/ …, 김보람님.11/13 …). Brackets are kept: "(주)…". */
const EDGE_PUNCTUATION = /^[\s.,/:;~\-·•▶]+|[\s.,/:;~\-·•▶]+$/g;
const SYMBOLS_ONLY = /^[^\p{L}\p{N}]*$/u;
const DIGITS_ONLY = /^[\d\s,.:-]+$/;

/**
 * The merchant is what no other reader took. Fragments on the card-label line are dropped when that
 * line carries no amount or time (product names: "현대 ZERO 승인", "네이버 현대카드 승인").
 */
export function pickMerchant(scratch: Scratch, headerOnlyLine: number | null): string | null {
  const candidates = scratch
    .fragments()
    .filter((fragment) => fragment.line !== headerOnlyLine)
    .map((fragment) => fragment.text.replace(EDGE_PUNCTUATION, '').trim())
    .filter((text) => !SYMBOLS_ONLY.test(text) && !DIGITS_ONLY.test(text));
  return candidates[0] ?? null;
}

/** English alerts name the merchant after "at": "A $3.01 transaction was made at BP#1234E on card ending in 1234." */
const ENGLISH_MERCHANT = /\bat\s(?<merchant>.+?)(?=\s(?:on|was|for)\s|\.(?:\s|$)|$)/;

export function englishMerchant(text: string): string | null {
  if (containsHangul(text)) return null;
  return ENGLISH_MERCHANT.exec(text)?.groups?.merchant?.trim() ?? null;
}
