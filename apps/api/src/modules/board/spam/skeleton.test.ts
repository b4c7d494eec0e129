/**
 * The spam filter's skeleton (decision BD27), without the database: separators, look-alike letters and
 * Korean text, as properties over generated text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONFUSABLES } from './confusables.data.js';
import { spamSkeleton } from './normalize.js';
import { containsKeyword } from './spam-filter.js';

const RUNS = { numRuns: 300 };

/** Separators a spammer puts between letters: spaces, punctuation, symbols, line breaks, invisible characters. */
const SEPARATOR_CHARACTERS = [
  ' ',
  '  ',
  '\t',
  '\n',
  '\u3000',
  '\u00a0',
  '.',
  '..',
  '-',
  '_',
  '*',
  '/',
  '\\',
  '|',
  ',',
  '~',
  '!',
  '+',
  '=',
  '·',
  '•',
  '…',
  '★',
  '♥',
  '♡',
  '\u200b',
  '\u200d',
  '\u2060',
  '\u00ad',
  '(',
  ')',
  '[',
  ']',
  "'",
  '"',
  '^',
  '♪',
];
const WHITESPACE_FREE = SEPARATOR_CHARACTERS.filter((separator) => !/\s/u.test(separator));

const separator = (from: string[]) =>
  fc.array(fc.constantFrom(...from), { minLength: 1, maxLength: 3 }).map((parts) => parts.join(''));

/** The `n`th Hangul syllable of a small, common set: collisions between words are then likely. */
const SYLLABLES = [
  ...'가나다라마바사아자차카타파하대출문의기회주식오늘시예정사람말했고는은이을를에서도로와과한중상하고',
];
const hangulWord = (min: number, max: number) =>
  fc.array(fc.constantFrom(...SYLLABLES), { minLength: min, maxLength: max }).map((syllables) => syllables.join(''));

const latinKeyword = fc.stringMatching(/^[a-z]{3,10}$/);
const keyword = fc.oneof(latinKeyword, hangulWord(2, 4));

/** Text before and after: words that end in a separator holding whitespace, so they do not run into the keyword. */
const context = fc.array(fc.oneof(fc.stringMatching(/^[a-z]{2,8}$/), hangulWord(2, 5)), { maxLength: 4 });
const around = (before: string[], middle: string, after: string[]) => [...before, middle, ...after].join(' ');

const spacedOut = (word: string, separators: string[]) =>
  [...word].map((letter, index) => (index === 0 ? letter : separators[index - 1] + letter)).join('');

describe('separators between the letters of a keyword', () => {
  it('any separators between every pair of letters are caught', () => {
    fc.assert(
      fc.property(
        keyword,
        fc.array(separator(SEPARATOR_CHARACTERS), { minLength: 9, maxLength: 9 }),
        context,
        context,
        (word, separators, before, after) => {
          expect(containsKeyword(around(before, spacedOut(word, separators), after), [word])).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it('separators without whitespace between any of the letters are caught', () => {
    fc.assert(
      fc.property(
        keyword,
        fc.array(fc.option(separator(WHITESPACE_FREE), { nil: '' }), { minLength: 9, maxLength: 9 }),
        context,
        context,
        (word, separators, before, after) => {
          expect(containsKeyword(around(before, spacedOut(word, separators), after), [word])).toBe(true);
        },
      ),
      RUNS,
    );
  });
});

interface LookAlike {
  source: string;
  /** The prototype as the table has it (`l`, or `L`). */
  prototype: string;
}

/** Table entries whose prototype is one letter or digit, by that lower-case letter or digit. */
function lookAlikes(): Map<string, LookAlike[]> {
  const byLetter = new Map<string, LookAlike[]>();
  for (const line of CONFUSABLES) {
    for (const entry of line.split(';')) {
      const [source = '', prototype = ''] = entry.split('>').map((codes) =>
        codes
          .split(' ')
          .map((code) => String.fromCodePoint(Number.parseInt(code, 16)))
          .join(''),
      );
      const letter = prototype.toLowerCase();
      if (!/^[a-z0-9]$/.test(letter) || /\p{Script=Hangul}/u.test(source)) continue;
      byLetter.set(letter, [...(byLetter.get(letter) ?? []), { source, prototype }]);
    }
  }
  return byLetter;
}

/**
 * What the skeleton reads a look-alike as, when it is not its prototype, on purpose:
 * - NFKC comes first: `ſ` is `s` (the table: `f`), Greek `ϲ`/`Ϲ` are sigmas, `ͺ` is a space and a mark;
 * - a separator that looks like a letter (`|`) stays a separator;
 * - a capital whose prototype is `l` (`I`, `𝐈`, Greek `Ι`, Cyrillic `І`) is an `i`: case is ignored.
 */
const READ_OTHERWISE = new Set(['ſ', 'ϲ', 'Ϲ', 'ͺ']);
const isCapital = (text: string) => text.toLowerCase() !== text;
const readsAs = ({ source, prototype }: LookAlike, letter: string) => {
  if (READ_OTHERWISE.has(source)) return null;
  if (!/[\p{L}\p{N}\p{M}]/u.test(source)) return null;
  if (prototype === 'l' && isCapital(source.normalize('NFKC'))) return 'i';
  return letter;
};

describe('look-alike letters', () => {
  const table = lookAlikes();

  it('every look-alike of a Latin letter or digit in the table reads as that letter, but for the listed ones', () => {
    const misread: string[] = [];
    for (const [letter, sources] of table) {
      for (const lookAlike of sources) {
        const { source } = lookAlike;
        const expected = readsAs(lookAlike, letter);
        if (expected !== null && spamSkeleton(source) !== spamSkeleton(expected)) {
          misread.push(
            `${source} (U+${source.codePointAt(0)!.toString(16)}) → ${spamSkeleton(source)}, not ${expected}`,
          );
        }
      }
    }
    expect(misread).toEqual([]);
    expect(table.get('a')!.length).toBeGreaterThan(20);
  });

  it('any substitution of look-alikes, in any case, is caught', () => {
    const substitute = (letter: string) => {
      const options = (table.get(letter) ?? [])
        .filter((lookAlike) => readsAs(lookAlike, letter) === letter)
        .map(({ source }) => source);
      return fc.constantFrom(letter, letter.toUpperCase(), ...options);
    };
    fc.assert(
      fc.property(
        latinKeyword.chain((word) => fc.tuple(fc.constant(word), fc.tuple(...[...word].map(substitute)))),
        context,
        context,
        ([word, letters], before, after) => {
          expect(containsKeyword(around(before, letters.join(''), after), [word])).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it('spacing and look-alikes together are caught', () => {
    expect(containsKeyword('Ⅽ . А . Ѕ . Ι . Ν . Ο', ['casino'])).toBe(true);
    expect(containsKeyword('к а з и н о', ['казино'])).toBe(true);
    // Hangul fillers show nothing: they separate like a zero-width space.
    expect(containsKeyword('급전 대\u3164출 가능', ['대출'])).toBe(true);
  });
});

/** A sentence of Korean words (2 to 5 syllables), each followed by a separator that holds whitespace. */
const koreanSentence = fc.array(
  fc.tuple(hangulWord(2, 5), fc.constantFrom(' ', ', ', '. ', '! ', '? ', '\n', ' - ', '… ', ' · ', '~ ')),
  { minLength: 2, maxLength: 12 },
);

describe('ordinary Korean text', () => {
  it('passes through unchanged (after NFKC): syllables and compatibility letters', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: 0xac00, max: 0xd7a3 }),
            // Compatibility letters, but for the filler (U+3164): it shows nothing and separates (BD27).
            fc.integer({ min: 0x3131, max: 0x318e }).filter((code) => code !== 0x3164),
          ),
          { minLength: 1, maxLength: 30 },
        ),
        (codes) => {
          const word = String.fromCodePoint(...codes);
          expect(spamSkeleton(word)).toBe(word.normalize('NFKC'));
        },
      ),
      RUNS,
    );
    expect(spamSkeleton('대출 문의는   오늘, 내일… 주세요.')).toBe('대출 문의는 오늘 내일 주세요');
  });

  it('a keyword that only appears across a word boundary is not caught', () => {
    fc.assert(
      fc.property(
        koreanSentence,
        fc.nat(),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        (words, at, tail, head) => {
          const index = at % (words.length - 1);
          const left = words[index]![0];
          const right = words[index + 1]![0];
          // The end of one word and the start of the next: what a filter that drops every space would see.
          const crossing = [...left].slice(-tail).join('') + [...right].slice(0, head).join('');
          const sentence = words.map(([word, after]) => word + after).join('');
          fc.pre(!words.some(([word]) => word.includes(crossing)));
          expect(containsKeyword(sentence, [crossing])).toBe(false);
        },
      ),
      RUNS,
    );
  });

  it('random sentences without a keyword in any word are not caught', () => {
    fc.assert(
      fc.property(koreanSentence, hangulWord(2, 4), (words, word) => {
        fc.pre(!words.some(([written]) => written.includes(word)));
        expect(containsKeyword(words.map(([written, after]) => written + after).join(''), [word])).toBe(false);
      }),
      RUNS,
    );
  });

  it('the same sentences with the keyword in a word are caught, also with its own spacing left out', () => {
    fc.assert(
      fc.property(koreanSentence, fc.nat(), (words, at) => {
        const [chosen] = words[at % words.length]!;
        const sentence = words.map(([written, after]) => written + after).join('');
        expect(containsKeyword(sentence, [chosen])).toBe(true);
        expect(containsKeyword(sentence.replaceAll(/\s+/gu, ''), [`${chosen.slice(0, 1)} ${chosen.slice(1)}`])).toBe(
          true,
        );
      }),
      RUNS,
    );
  });
});
