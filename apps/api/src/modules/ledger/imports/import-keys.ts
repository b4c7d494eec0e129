import { createHash } from 'node:crypto';
import { addDays } from '@nestegg/domain';
import type { StatementLine } from '@nestegg/statements';

/**
 * A statement row's import key (decision SI2): the same row of the same statement gives the same key on every
 * upload, so an entry made from it (unique per member and key) is never made twice, and two genuinely identical
 * rows of one file get two keys.
 * - With the institution's transaction or approval number: wallet, purchase or cancellation, the number, the
 *   date and the amount (a partial cancellation shares its purchase's number).
 * - Without: wallet, purchase or cancellation, type, date, amount, the normalised description and the row's
 *   occurrence among the identical rows before it in the file (YNAB's `import_id`).
 */
export type ImportKey = string;

const VERSION = 'si1';

/** The description as keys and matches compare it: compatibility forms, lower case, no spaces or punctuation. */
export function normalizedDescription(description: string | null): string {
  return (description ?? '')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\p{P}\p{S}]+/gu, '');
}

const amountPart = (line: StatementLine) => line.amount ?? `${line.currency}:${line.originalAmount}`;
const kindOf = (line: StatementLine) => (line.cancellation ? 'C' : 'P');
const wallet = (walletId: number | null) => walletId ?? '-';

function hashed(parts: readonly (string | number | null)[]): ImportKey {
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  return `${VERSION}:${digest.slice(0, 32)}`;
}

/** The key of a row that carries the institution's number. */
function numberedKey(line: StatementLine, walletId: number | null, kind: string): ImportKey {
  return hashed(['id', wallet(walletId), kind, line.transactionId, line.date, amountPart(line)]);
}

/** The identity of a row without a number, before its occurrence is counted. */
function contentOf(line: StatementLine, walletId: number | null): string {
  return JSON.stringify([
    wallet(walletId),
    kindOf(line),
    line.type,
    line.date,
    amountPart(line),
    normalizedDescription(line.description),
  ]);
}

/** The key of every transaction row, by row index (rows that are not transactions have none). */
export function importKeys(lines: readonly StatementLine[], walletId: number | null): Map<number, ImportKey> {
  const keys = new Map<number, ImportKey>();
  const seen = new Map<string, number>();
  for (const line of lines) {
    if (line.kind !== 'TRANSACTION') continue;
    if (line.transactionId) {
      keys.set(line.index, numberedKey(line, walletId, kindOf(line)));
      continue;
    }
    const content = contentOf(line, walletId);
    const occurrence = seen.get(content) ?? 0;
    seen.set(content, occurrence + 1);
    keys.set(line.index, hashed(['row', content, occurrence]));
  }
  return keys;
}

/** How far back a cancellation looks for its purchase (as card notifications do, decision CN7). */
export const CANCELLATION_WINDOW_DAYS = 90;

/**
 * The keys the purchase a numbered cancellation cancels may have been imported under: the same number and
 * amount, dated on the cancellation's day or up to the window before it. Empty without a number or a date.
 */
export function purchaseKeysOf(cancellation: StatementLine, walletId: number | null): ImportKey[] {
  const date = cancellation.date;
  if (!cancellation.transactionId || !date) return [];
  return Array.from({ length: CANCELLATION_WINDOW_DAYS + 1 }, (_, back) =>
    numberedKey({ ...cancellation, date: addDays(date, -back) }, walletId, 'P'),
  );
}
