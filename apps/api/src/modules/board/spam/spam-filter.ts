import { type DbOrTx, spamKeyword } from '@nestegg/db';
import { matchesKeyword, spamSkeleton } from './normalize.js';

/** Keyword skeletons by keyword as entered: the list is short and admin-managed. */
const keywordSkeletons = new Map<string, string>();

/** A keyword's skeleton, computed from the keyword as entered (rows stored before BD27 hold an older form). */
export function keywordSkeleton(keyword: string): string {
  let skeleton = keywordSkeletons.get(keyword);
  if (skeleton === undefined) {
    skeleton = spamSkeleton(keyword);
    if (keywordSkeletons.size >= 10_000) keywordSkeletons.clear();
    keywordSkeletons.set(keyword, skeleton);
  }
  return skeleton;
}

/** Whether a text holds one of the keywords, compared as skeletons (decision BD27). */
export function containsKeyword(text: string, keywords: readonly string[]): boolean {
  if (keywords.length === 0) return false;
  const skeleton = spamSkeleton(text);
  return keywords.some((keyword) => matchesKeyword(skeleton, keywordSkeleton(keyword)));
}

/**
 * Whether a text contains a spam keyword, checked against the current list read in the writing
 * transaction (no cached copy of the list to invalidate across api instances). The list is short and
 * admin-managed; the text is reduced to its skeleton once and each keyword is a substring search.
 */
export async function containsSpam(tx: DbOrTx, ...parts: string[]): Promise<boolean> {
  const rows = await tx.select({ keyword: spamKeyword.keyword }).from(spamKeyword);
  return containsKeyword(
    parts.join('\n'),
    rows.map((row) => row.keyword),
  );
}
