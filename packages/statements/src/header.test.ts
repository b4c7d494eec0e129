import { describe, expect, it } from 'vitest';
import { type Grid, locateHeader, periodOf } from './header.js';
import { DEFAULT_LIMITS } from './read.js';

const grid = (rows: string[][]): Grid => ({ rows, rowNumbers: rows.map((_, i) => i + 1) });
const locate = (rows: string[][]) => locateHeader(grid(rows), 'a.csv', DEFAULT_LIMITS);

describe('locateHeader', () => {
  it('finds the header below titles, account and period lines', () => {
    const t = locate([
      ['국민은행 거래내역조회'],
      ['계좌번호', '123-45-6789-012', '예금주', '홍길동'],
      ['조회기간', '2026.05.01 ~ 2026.05.31'],
      [],
      ['거래일시', '적요', '기재내용', '출금액', '입금액', '잔액'],
      ['2026.05.14 12:31:05', '체크카드', '스타벅스', '5,600', '0', '994,400'],
    ]);
    expect(t.headerRow).toBe(4);
    expect(t.header).toEqual(['거래일시', '적요', '기재내용', '출금액', '입금액', '잔액']);
    expect(t.rows).toHaveLength(1);
    expect(t.rowNumbers).toEqual([6]);
    expect(t.period).toEqual({ from: '2026-05-01', to: '2026-05-31' });
  });

  it('reads a group over blanks and its parts below (KB국민카드) as one header, the parts named by their group', () => {
    const upper = [
      '이용일자',
      '이용카드',
      '이용하신 가맹점',
      '이용금액',
      '이번달 결제금액',
      '',
      '',
      '결제 후 잔액',
      '',
    ];
    const named = [
      '이용일자',
      '이용카드',
      '이용하신 가맹점',
      '이용금액',
      '회차',
      '원금',
      '수수료(이자)',
      '회차',
      '원금',
    ];
    const row = ['26.02.03', 'VISA418', '이마트24', '5600', '', '5600', '', '', ''];
    const merged = [
      '이용일자',
      '이용카드',
      '이용하신 가맹점',
      '이용금액',
      '이번달 결제금액 회차',
      '이번달 결제금액 원금',
      '이번달 결제금액 수수료(이자)',
      '결제 후 잔액 회차',
      '결제 후 잔액 원금',
    ];
    expect(locate([upper, named, row])).toMatchObject({ headerRow: 1, header: merged, rowNumbers: [3] });
    // The lower row may leave blank what the upper row names alone.
    const parts = ['', '', '', '', '회차', '원금', '수수료(이자)', '회차', '원금'];
    expect(locate([upper, parts, row])).toMatchObject({ headerRow: 1, header: merged, rowNumbers: [3] });
  });

  it('prefers the row naming the most columns', () => {
    const t = locate([
      ['이용일자', '이용금액'],
      ['이용일자', '가맹점명', '이용금액', '할부', '승인번호'],
      ['2026-05-14', '쿠팡', '1200', '', '1'],
    ]);
    expect(t.headerRow).toBe(1);
  });

  it('reads a two-row header under merged cells as one', () => {
    const t = locate([
      ['이용일자', '가맹점명', '이용금액', '이용금액', '통화'],
      ['이용일자', '가맹점명', '원화', '현지', '통화'],
      ['2026-05-14', 'AMAZON', '16,520', '12.34', 'USD'],
    ]);
    expect(t.headerRow).toBe(1);
    expect(t.header).toEqual(['이용일자', '가맹점명', '이용금액 원화', '이용금액 현지', '통화']);
  });

  it('finds a header it cannot name by the dates and amounts under it', () => {
    const t = locate([
      ['Buchungstag', 'Verwendungszweck', 'Betrag'],
      ['2026-05-14', 'Miete', '-850,00'],
      ['2026-05-15', 'Gehalt', '3.200,00'],
    ]);
    expect(t.headerRow).toBe(0);
  });

  it('throws NO_HEADER when no row names a date and an amount', () => {
    expect(() =>
      locate([
        ['hello', 'world'],
        ['a', 'b'],
      ]),
    ).toThrow(expect.objectContaining({ code: 'NO_HEADER' }));
    expect(() =>
      locate([
        ['2026-05-14', '1200'],
        ['2026-05-15', '1300'],
      ]),
    ).toThrow(/no header row we recognise/);
  });

  it('throws EMPTY for blank rows only and for a header without rows', () => {
    expect(() => locate([[''], []])).toThrow(expect.objectContaining({ code: 'EMPTY' }));
    expect(() =>
      locate([
        ['이용일자', '이용금액'],
        ['', ''],
      ]),
    ).toThrow(/header row but no transactions/);
  });

  it('throws TOO_MANY_ROWS past maxRows', () => {
    const rows = [['이용일자', '이용금액'], ...Array.from({ length: 11 }, () => ['2026-05-14', '1'])];
    expect(() => locateHeader(grid(rows), 'a.csv', { ...DEFAULT_LIMITS, maxRows: 10 })).toThrow(
      expect.objectContaining({ code: 'TOO_MANY_ROWS' }),
    );
  });
});

describe('periodOf', () => {
  it.each([
    [[['조회기간 : 2026.05.01 ~ 2026.05.31']], { from: '2026-05-01', to: '2026-05-31' }],
    [[['기간', '20251201', '~', '20260131']], { from: '2025-12-01', to: '2026-01-31' }],
    [[['2026년 02월 이용대금 명세서']], { from: '2026-02-01', to: '2026-02-28' }],
    [[['신한카드']], null],
  ])('%j → %j', (rows, period) => {
    expect(periodOf(rows)).toEqual(period);
  });
});
