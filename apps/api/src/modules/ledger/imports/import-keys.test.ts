import type { StatementLine } from '@nestegg/statements';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importKeys, normalizedDescription, purchaseKeysOf } from './import-keys.js';

const line = (index: number, fields: Partial<StatementLine> = {}): StatementLine => ({
  index,
  rowNumber: index + 2,
  kind: 'TRANSACTION',
  reason: null,
  date: '2026-05-14',
  time: null,
  type: 'EXPENSE',
  amount: 1500,
  currency: null,
  originalAmount: null,
  description: 'GS25 성수역점',
  transactionId: null,
  installmentMonths: null,
  card: null,
  balance: null,
  cancellation: false,
  ...fields,
});

describe('import keys (decision SI2)', () => {
  it('gives identical rows of one file different keys, and the same keys on every upload', () => {
    const lines = [line(0), line(1), line(2, { amount: 1600 })];
    const first = importKeys(lines, 7);
    expect(new Set(first.values()).size).toBe(3);
    expect(importKeys(lines, 7)).toEqual(first);
    expect(first.get(0)).toMatch(/^si1:[\w-]{32}$/);
  });

  it('keys an overlapping later statement’s rows as the earlier one did', () => {
    const earlier = importKeys([line(0), line(1)], 7);
    const later = importKeys([line(0), line(1), line(2, { date: '2026-05-15' })], 7);
    expect([later.get(0), later.get(1)]).toEqual([earlier.get(0), earlier.get(1)]);
  });

  it('tells purchase from cancellation and one wallet from another; the number decides where there is one', () => {
    const purchase = importKeys([line(0, { transactionId: '12345678' })], 7).get(0);
    const cancellation = importKeys([line(0, { transactionId: '12345678', cancellation: true })], 7).get(0);
    const elsewhere = importKeys([line(0, { transactionId: '12345678' })], 8).get(0);
    const otherText = importKeys([line(0, { transactionId: '12345678', description: '다른 가맹점' })], 7).get(0);
    expect(new Set([purchase, cancellation, elsewhere]).size).toBe(3);
    expect(otherText).toBe(purchase);
  });

  it('finds the keys a numbered cancellation’s purchase may have, up to 90 days back', () => {
    const purchase = importKeys([line(0, { transactionId: '12345678', date: '2026-03-01' })], 7).get(0)!;
    const keys = purchaseKeysOf(line(0, { transactionId: '12345678', cancellation: true, date: '2026-05-14' }), 7);
    expect(keys).toHaveLength(91);
    expect(keys).toContain(purchase);
    expect(purchaseKeysOf(line(0, { cancellation: true }), 7)).toEqual([]);
  });

  it('compares descriptions without case, spaces, punctuation or compatibility forms', () => {
    expect(normalizedDescription(' GS25  성수역점 ')).toBe(normalizedDescription('gs25(성수역점)'));
    expect(normalizedDescription('ＧＳ２５')).toBe('gs25');
    fc.assert(
      fc.property(
        fc.string(),
        (text) => normalizedDescription(normalizedDescription(text)) === normalizedDescription(text),
      ),
    );
  });
});
