/** Carrier tags the phone puts before a message that came through the web gateway. */
const SENDER_TAG = /^[[(](?:web|국외|국제)\s?발신[\])]\s*/i;
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/g;
/** Separators that apps put between card name and merchant on one line ("하나카드 | 비비큐", "토스뱅크 ・ 구글"). */
const INLINE_SEPARATOR = /\s+[|・·•]\s+|\|/g;

/**
 * Canonical text: NFKC (full-width digits, letters and brackets become ASCII), LF line breaks,
 * single spaces, no empty lines, no [Web발신] tag and no wrapping quotes.
 */
export function normalizeNotification(raw: string): string {
  const lines = raw
    .normalize('NFKC')
    .replace(ZERO_WIDTH, '')
    .replace(/\r\n?/g, '\n')
    .replace(INLINE_SEPARATOR, '\n')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0);
  return stripWrappingQuotes(stripSenderTag(lines.join('\n')));
}

function stripSenderTag(text: string): string {
  return text.replace(SENDER_TAG, '').trim();
}

function stripWrappingQuotes(text: string): string {
  const quoted = /^"(?<inner>[\s\S]*)"$/.exec(text);
  return quoted?.groups?.inner?.trim() ?? text;
}

export function containsHangul(text: string): boolean {
  return /[가-힣]/.test(text);
}
