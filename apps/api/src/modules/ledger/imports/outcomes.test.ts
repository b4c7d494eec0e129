import type { StatementLine } from '@nestegg/statements';
import { describe, expect, it } from 'vitest';
import { importKeys } from './import-keys.js';
import { decideOutcomes, type ExistingEntry, likeness, type OutcomeInputs } from './outcomes.js';

const line = (index: number, fields: Partial<StatementLine> = {}): StatementLine => ({
  index,
  rowNumber: index + 2,
  kind: 'TRANSACTION',
  reason: null,
  date: '2026-05-14',
  time: null,
  type: 'EXPENSE',
  amount: 12800,
  currency: null,
  originalAmount: null,
  description: '스타벅스 강남R점',
  transactionId: null,
  installmentMonths: null,
  card: null,
  balance: null,
  cancellation: false,
  ...fields,
});

const entry = (id: number, fields: Partial<ExistingEntry> = {}): ExistingEntry => ({
  id,
  type: 'EXPENSE',
  amount: 12800,
  date: '2026-05-14',
  memo: '스타벅스 강남R점',
  accountId: null,
  importKey: null,
  ...fields,
});

function decide(lines: StatementLine[], overrides: Partial<OutcomeInputs> = {}) {
  const keys = importKeys(lines, null);
  return decideOutcomes({
    lines: lines.map((l) => ({ line: l, key: keys.get(l.index) ?? null, amount: l.amount, unpriced: null })),
    walletId: null,
    excluded: new Set(),
    choices: new Map(),
    known: new Map(),
    importedPurchases: new Map(),
    entries: [],
    matchWindowDays: 3,
    ...overrides,
  });
}

describe('row outcomes (decisions SI3, SI4)', () => {
  it('keeps rows that are not transactions, left out or unpriced out of every match', () => {
    const outcomes = decide(
      [
        line(0, { kind: 'SKIPPED', reason: 'a total' }),
        line(1, { kind: 'INVALID', reason: 'no date' }),
        line(2),
        line(3, { amount: null }),
      ],
      { excluded: new Set([2]) },
    );
    expect(outcomes.map((o) => o.outcome)).toEqual(['SKIPPED', 'INVALID', 'EXCLUDED', 'INVALID']);
  });

  it('confirms the closest alike entry, claims each entry once, and shows a tie instead of choosing', () => {
    const entries = [entry(1, { date: '2026-05-13' }), entry(2, { date: '2026-05-16' })];
    const [closest, second] = decide([line(0), line(1)], { entries });
    expect(closest).toMatchObject({ outcome: 'MATCHED', entryId: 1 });
    expect(second).toMatchObject({ outcome: 'MATCHED', entryId: 2 });
    const tie = decide([line(0)], { entries: [entry(1, { date: '2026-05-13' }), entry(2, { date: '2026-05-15' })] });
    expect(tie[0]).toMatchObject({ outcome: 'NEW', candidates: [1, 2] });
  });

  it('never matches another amount, type, wallet, a date past the window or an unlike description', () => {
    const entries = [
      entry(1, { amount: 12900 }),
      entry(2, { type: 'INCOME' }),
      entry(3, { accountId: 9 }),
      entry(4, { date: '2026-05-10' }),
      entry(5, { memo: '이마트' }),
      entry(6, { importKey: 'si1:taken' }),
    ];
    expect(decide([line(0)], { entries, walletId: 8 })[0]).toMatchObject({ outcome: 'NEW', candidates: [] });
  });

  it('follows the member’s choice, first, and a choice of none keeps the row new', () => {
    const entries = [entry(1), entry(2, { date: '2026-05-15' })];
    expect(decide([line(0)], { entries, choices: new Map([[0, 2]]) })[0]).toMatchObject({
      outcome: 'MATCHED',
      entryId: 2,
    });
    expect(decide([line(0)], { entries, choices: new Map([[0, null]]) })[0]).toMatchObject({ outcome: 'NEW' });
  });

  it('pairs a cancellation with its purchase in the file, else with an entry, else removes nothing', () => {
    const inFile = decide([
      line(0, { transactionId: '1' }),
      line(1, { transactionId: '1', cancellation: true, date: '2026-05-15' }),
    ]);
    expect(inFile.map((o) => [o.outcome, o.cancelsRow])).toEqual([
      ['CANCELLATION', null],
      ['CANCELLATION', 0],
    ]);
    const ofEntry = decide([line(0, { cancellation: true, date: '2026-05-20' })], { entries: [entry(7)] });
    expect(ofEntry[0]).toMatchObject({ outcome: 'CANCELLATION', entryId: 7 });
    const alone = decide([line(0, { cancellation: true })]);
    expect(alone[0]).toMatchObject({ outcome: 'CANCELLATION', entryId: null });
  });

  it('finds duplicates by key before anything else', () => {
    const lines = [line(0)];
    const key = importKeys(lines, null).get(0)!;
    expect(decide(lines, { known: new Map([[key, 42]]), entries: [entry(1)] })[0]).toMatchObject({
      outcome: 'DUPLICATE',
      entryId: 42,
    });
  });

  it('scores descriptions: the same, one holding the other (or one empty), different', () => {
    expect(likeness('스타벅스 강남R점', '스타벅스강남r점')).toBe(2);
    expect(likeness('스타벅스', '스타벅스 강남R점')).toBe(1);
    expect(likeness(null, '이마트')).toBe(1);
    expect(likeness('이마트', '홈플러스')).toBe(0);
  });
  it('pairs each cancellation and match within its own amount, among rows and entries of many amounts', () => {
    // Purchases of two amounts interleaved: each cancellation takes the latest open purchase of its amount, and a
    // row matches only an entry of its type and amount (decision SI4; the lookup is grouped by amount).
    const lines = [
      line(0, { amount: 5000, date: '2026-05-10', description: 'A' }),
      line(1, { amount: 7000, date: '2026-05-11', description: 'A' }),
      line(2, { amount: 5000, date: '2026-05-12', description: 'A' }),
      line(3, { amount: 7000, date: '2026-05-13', description: 'A' }),
      line(4, { amount: 5000, date: '2026-05-14', description: 'A', cancellation: true }),
      line(5, { amount: 7000, date: '2026-05-14', description: 'A', cancellation: true }),
      line(6, { amount: 9000, date: '2026-05-14', description: 'B' }),
      line(7, { type: 'INCOME', amount: 9000, date: '2026-05-14', description: 'B' }),
    ];
    const outcomes = decide(lines, {
      entries: [entry(70, { amount: 9000, memo: 'B', type: 'INCOME' }), entry(71, { amount: 8000, memo: 'B' })],
    });
    expect(outcomes.map((o) => [o.outcome, o.cancelsRow, o.entryId])).toEqual([
      ['NEW', null, null],
      ['NEW', null, null],
      ['CANCELLATION', null, null],
      ['CANCELLATION', null, null],
      ['CANCELLATION', 2, null],
      ['CANCELLATION', 3, null],
      ['NEW', null, null],
      ['MATCHED', null, 70],
    ]);
  });
});
