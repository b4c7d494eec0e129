import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.js';

describe('keyset cursors', () => {
  it('round-trip their sort key and stay URL-safe', () => {
    const cursor = encodeCursor(['2026-11-02', 1234]);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, ['string', 'number'])).toEqual(['2026-11-02', 1234]);
  });

  it('refuse anything else with 400 CURSOR_INVALID', () => {
    const wrongShape = encodeCursor([1, 'x']);
    for (const bad of ['', 'not-base64!', Buffer.from('{}').toString('base64url'), wrongShape, encodeCursor(['a'])]) {
      expect(() => decodeCursor(bad, ['string', 'number']), bad).toThrowError(
        expect.objectContaining({ status: 400, code: 'CURSOR_INVALID' }),
      );
    }
    expect(() => decodeCursor(encodeCursor(['2026-01-01', 2 ** 60]), ['string', 'number'])).toThrow();
  });
});
