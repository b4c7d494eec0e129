/** Invisible format characters (zero-width spaces and joiners, soft hyphens, bidi marks, BOM): Unicode category Cf. */
const FORMAT_CHARACTERS = /\p{Cf}/gu;
const WHITESPACE_RUNS = /\s+/gu;

/**
 * Text as the spam filter compares it: NFKC (full-width letters, ligatures, circled and compatibility forms
 * fold to their plain letters), lower case, invisible format characters removed (they split a word without
 * showing), whitespace runs as one space. Keywords are stored in this form and matched as substrings of the
 * content in this form.
 */
export function normalizeForSpam(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(FORMAT_CHARACTERS, '').replace(WHITESPACE_RUNS, ' ').trim();
}
