import { BadRequestError } from './errors.js';

/**
 * Opaque keyset cursors: the sort key of the last row of a page, so the next page starts right after it
 * (`where (date, id) < (…)`), at the same cost at any depth. Encoded as base64url JSON with a version, so
 * the format can change; clients must not build or parse them.
 */
const VERSION = 1;

export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify([VERSION, ...key])).toString('base64url');
}

/** The sort key, checked against the expected shape; anything else is 400 CURSOR_INVALID. */
export function decodeCursor<const K extends readonly ('string' | 'number')[]>(
  cursor: string,
  shape: K,
): { [I in keyof K]: K[I] extends 'number' ? number : string } {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(decoded) || decoded[0] !== VERSION || decoded.length !== shape.length + 1) throw invalidCursor();
  const key = decoded.slice(1);
  if (
    !key.every(
      (part, index) => typeof part === shape[index] && (typeof part !== 'number' || Number.isSafeInteger(part)),
    )
  ) {
    throw invalidCursor();
  }
  return key as { [I in keyof K]: K[I] extends 'number' ? number : string };
}

function invalidCursor() {
  return new BadRequestError('CURSOR_INVALID', 'The cursor is not one this list gave.');
}
