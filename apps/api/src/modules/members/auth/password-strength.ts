import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';
import { BadRequestError } from '../../../lib/errors.js';

/**
 * zxcvbn's score of a password, 0 (guessed at once) to 4. ASVS 2.1.7 asks to refuse breached and common
 * passwords; zxcvbn-ts ranks them against frequency lists of common passwords, words and names, plus
 * keyboard patterns, dates and repeats, and counts the user's own e-mail and name as guessable.
 */
const estimator = new ZxcvbnFactory({
  dictionary: { ...common.dictionary, ...english.dictionary },
  graphs: common.adjacencyGraphs,
  translations: english.translations,
});

/** Decision M21: score 3 ("safely unguessable": about 10^8 guesses and up) or better. */
export const MIN_PASSWORD_SCORE = 3;

/** The member's own words, whole and in parts (`ann.lee@example.com` → `ann.lee`, `ann`, `lee`, …). */
function guessableWords(userInputs: string[]): string[] {
  const words = userInputs.flatMap((input) => [input, ...input.split(/[@\s._+-]+/)]);
  return [...new Set(words.map((word) => word.trim().toLowerCase()).filter((word) => word.length >= 3))];
}

/** Refuses a weak or common password with 400 WEAK_PASSWORD and zxcvbn's advice. */
export function assertStrongPassword(password: string, userInputs: string[] = []): void {
  // Scoring is linear in length; the contract caps passwords at 128 characters.
  const result = estimator.check(
    password,
    guessableWords([...userInputs, ...userInputs.map((input) => input.split('@')[0] ?? '')]),
  );
  if (result.score >= MIN_PASSWORD_SCORE) return;
  const advice = [result.feedback.warning, ...result.feedback.suggestions].filter(Boolean).join(' ');
  throw new BadRequestError('WEAK_PASSWORD', `This password is too easy to guess.${advice ? ` ${advice}` : ''}`);
}
