import { CONFUSABLES } from './confusables.data.js';

/**
 * Invisible characters: format characters (zero-width spaces and joiners, soft hyphens, bidi marks, BOM:
 * category Cf) and the Hangul fillers, which are letters that show nothing. They separate like punctuation.
 */
const INVISIBLE = /[\p{Cf}\u115F\u1160\u3164\uFFA0]/u;
const MARKS = /\p{M}/gu;
const HANGUL = /\p{Script=Hangul}/u;
/** What a word is made of; anything else between words is a separator. */
const WORD_CHARACTER = /[\p{L}\p{N}]/u;
const WORD_OR_MARK = /^[\p{L}\p{N}\p{M}]$/u;
const WHITESPACE = /\s/u;

/**
 * The UTS #39 table as the filter uses it (decision BD27):
 * - Hangul is left out: Korean passes through unchanged (no jamo or compatibility letter becomes Latin).
 * - A separator whose prototype is a letter or digit (`|` → `l`, `%` → `º/₀`) stays a separator, so
 *   `c|a|s|i|n|o` is a spaced word, not `clalslilnlo`.
 * - An upper-case letter whose prototype is `l` (`I`, Greek `Ι`, Cyrillic `І`) is an `i`: the filter
 *   ignores case, and in capitals these are read as I.
 */
const PROTOTYPES = readTable();

function readTable(): Map<string, string> {
  const fromHex = (codes: string) =>
    codes
      .split(' ')
      .map((code) => String.fromCodePoint(Number.parseInt(code, 16)))
      .join('');
  const table = new Map<string, string>();
  for (const line of CONFUSABLES) {
    for (const entry of line.split(';')) {
      const [source = '', prototype = ''] = entry.split('>').map(fromHex);
      if (HANGUL.test(source)) continue;
      if (!WORD_OR_MARK.test(source) && WORD_CHARACTER.test(prototype)) continue;
      table.set(source, prototype === 'l' && source.toLowerCase() !== source ? 'i' : prototype);
    }
  }
  return table;
}

/** One step: decomposed, each code point to its prototype, marks dropped, lower case; Hangul kept. */
function step(text: string): string {
  let out = '';
  for (const char of text) {
    if (HANGUL.test(char)) {
      out += char;
      continue;
    }
    for (const part of char.normalize('NFD')) {
      const prototype = PROTOTYPES.get(part) ?? part;
      for (const piece of prototype) {
        out += HANGUL.test(piece) ? piece : piece.normalize('NFD').replace(MARKS, '').toLowerCase();
      }
    }
  }
  return out;
}

/** Skeletons of the characters seen so far; emptied past `SKELETON_CACHE_MAX` (texts of any script stay cheap). */
const characterSkeletons = new Map<string, string>();
const SKELETON_CACHE_MAX = 20_000;

/** A character's skeleton: `step` until nothing changes (lower-casing can reach another table entry). */
function characterSkeleton(char: string): string {
  let skeleton = characterSkeletons.get(char);
  if (skeleton === undefined) {
    skeleton = char;
    for (let round = 0; round < 8; round += 1) {
      const next = step(skeleton);
      if (next === skeleton) break;
      skeleton = next;
    }
    if (characterSkeletons.size >= SKELETON_CACHE_MAX) characterSkeletons.clear();
    characterSkeletons.set(char, skeleton);
  }
  return skeleton;
}

/**
 * Text as the spam filter compares it (decisions BD14, BD27):
 * 1. NFKC (full-width letters, ligatures, circled and compatibility forms fold to plain letters).
 * 2. Each character to its skeleton: UTS #39 confusables (Cyrillic `а`, Greek `Α` → `a`), combining marks
 *    dropped, lower case. Hangul is kept as it is.
 * 3. Words are runs of letters and digits (judged after step 2, so a letter that looks like a dot is a dot);
 *    invisible characters (`INVISIBLE`) split words without showing. The separators between two words are
 *    - dropped when they hold no whitespace (`c.a.s.i.n.o`, `ca-si-no`, `c_asino`),
 *    - dropped when both words are one character long (`c a s i n o`, `대 출`),
 *    - otherwise one space.
 *    So words that only meet across a space stay apart (`주식 사 기회`, `사, 기회` do not read `사기`).
 * Keywords are reduced the same way and matched as substrings (`matchesKeyword`).
 */
export function spamSkeleton(text: string): string {
  let out = '';
  let word = '';
  let wordLength = 0;
  let previousLength = 0;
  let gap = '';
  const endWord = () => {
    if (wordLength === 0) return;
    if (out !== '') {
      const join = !WHITESPACE.test(gap) || (previousLength === 1 && wordLength === 1);
      out += join ? '' : ' ';
    }
    out += word;
    previousLength = wordLength;
    word = '';
    wordLength = 0;
    gap = '';
  };
  for (const char of text.normalize('NFKC')) {
    if (INVISIBLE.test(char)) {
      endWord(); // a separator without whitespace
      continue;
    }
    const skeleton = characterSkeleton(char);
    if (skeleton === '') continue; // a combining mark on its own
    if (WORD_CHARACTER.test(skeleton)) {
      word += skeleton;
      wordLength += 1;
    } else {
      endWord();
      gap += char;
    }
  }
  endWord();
  return out;
}

/**
 * Whether the text's skeleton holds the keyword's skeleton, as written or with its spaces left out: the
 * keyword `대출 문의` also matches `대출문의` (Korean spacing varies), never the other way round.
 */
export function matchesKeyword(textSkeleton: string, keywordSkeleton: string): boolean {
  if (keywordSkeleton === '') return false;
  return textSkeleton.includes(keywordSkeleton) || textSkeleton.includes(keywordSkeleton.replaceAll(' ', ''));
}
