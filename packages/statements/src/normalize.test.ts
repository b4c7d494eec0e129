import { describe, expect, it } from 'vitest';
import { proposeMapping } from './mapping.js';
import { installments, normalizeRows } from './normalize.js';
import { table } from './table.fixture.js';
import type { NormalizeOptions, StatementLine, StatementTable } from './types.js';

function lines(t: StatementTable, options: Partial<NormalizeOptions> = {}): StatementLine[] {
  const p = proposeMapping(t);
  return normalizeRows(t, p.mapping, { dateOrder: p.dateOrder ?? 'YMD', defaultCurrency: 'KRW', ...options });
}

const pick = (l: StatementLine) => ({
  kind: l.kind,
  date: l.date,
  type: l.type,
  amount: l.amount,
  cancellation: l.cancellation,
  ...(l.reason ? { reason: l.reason } : {}),
});

const CARD = ['이용일자', '가맹점명', '이용금액', '할부', '승인번호', '상태'];

describe('normalizeRows', () => {
  it('reads a full transaction line', () => {
    const t = table(
      ['이용일시', '이용카드', '가맹점명', '이용금액', '할부', '승인번호'],
      [['2026.05.14 12:31', '1234-****-****-5678', '  스타벅스   강남점 ', '5,600원', '3개월', '30012345']],
    );
    expect(lines(t)).toEqual([
      {
        index: 0,
        rowNumber: 2,
        kind: 'TRANSACTION',
        reason: null,
        date: '2026-05-14',
        time: '12:31',
        type: 'EXPENSE',
        amount: 5600,
        currency: null,
        originalAmount: null,
        description: '스타벅스 강남점',
        transactionId: '30012345',
        installmentMonths: 3,
        card: '1234-****-****-5678',
        balance: null,
        cancellation: false,
      },
    ]);
  });

  it('skips blank rows, repeated headers, totals and notes, saying which', () => {
    const t = table(CARD, [
      ['', '', '', '', '', ''],
      ['2026.05.14', '스타벅스', '5,600', '', '1', ''],
      ['이용일자', '가맹점명', '이용금액', '할부', '승인번호', '상태'],
      ['2026.05.15', '쿠팡', '1,200', '', '2', ''],
      ['합계', '', '6,800', '', '', ''],
      ['', '총 이용금액', '6,800', '', '', ''],
      ['Total', '', '6,800', '', '', ''],
      ['소계 (2건)', '', '6,800', '', '', ''],
      ['※ 본 내역은 조회 시점 기준입니다.'],
    ]);
    expect(lines(t).map((l) => [l.kind, l.reason])).toEqual([
      ['SKIPPED', 'a blank row'],
      ['TRANSACTION', null],
      ['SKIPPED', 'a repeated header row'],
      ['TRANSACTION', null],
      ['SKIPPED', 'a total or summary row ("합계")'],
      ['SKIPPED', 'a total or summary row ("총 이용금액")'],
      ['SKIPPED', 'a total or summary row ("Total")'],
      ['SKIPPED', 'a total or summary row ("소계 (2건)")'],
      ['SKIPPED', 'a note or section title, not a transaction ("※ 본 내역은 조회 시점 기준입니다.")'],
    ]);
  });

  it('marks rows it cannot read INVALID with the reason, and never throws', () => {
    const t = table(CARD, [
      ['2025-13-01', '스타벅스', '5,600', '', '', ''],
      ['어제', '스타벅스', '5,600', '', '', ''],
      ['', '스타벅스', '5,600', '', '', ''],
      ['2026-05-14', '스타벅스', '오천원', '', '', ''],
      ['2026-05-14', '스타벅스', '', '', '', ''],
      ['2026-05-14', '스타벅스', '12.5', '', '', ''],
    ]);
    expect(lines(t).map((l) => [l.kind, l.reason])).toEqual([
      ['INVALID', 'the date "2025-13-01" is not a calendar date'],
      ['INVALID', '"어제" is not a date'],
      ['INVALID', 'the row has no date'],
      ['INVALID', 'the amount "오천원" is not a number'],
      ['INVALID', 'the row has no amount'],
      ['INVALID', 'the amount "12.5" is not a whole number of won'],
    ]);
  });

  it('reads card cancellations: a negative amount, a 취소 status, a (취소) in the merchant', () => {
    const t = table(CARD, [
      ['2026.05.14', '쿠팡', '120,000', '3', '1', '승인'],
      ['2026.05.15', '쿠팡', '-120,000', '3', '2', ''],
      ['2026.05.15', '이마트', '30,000', '', '3', '승인취소'],
      ['2026.05.16', '(취소) GS25', '3,000', '', '4', ''],
      ['2026.05.16', '취소전문점', '3,000', '', '5', '정상'],
    ]);
    expect(lines(t).map((l) => [l.type, l.amount, l.cancellation])).toEqual([
      ['EXPENSE', 120000, false],
      ['EXPENSE', 120000, true],
      ['EXPENSE', 30000, true],
      ['EXPENSE', 3000, true],
      ['EXPENSE', 3000, false],
    ]);
  });

  it('reads a bank statement: withdrawals are expenses, deposits income, 출금취소 in 적요 cancels an expense', () => {
    const t = table(
      ['거래일시', '적요', '내용', '출금액', '입금액', '잔액'],
      [
        ['2026.05.14 09:00:00', '급여', '(주)회사', '0', '3,000,000', '3,000,000'],
        ['2026.05.14 12:31:05', '체크카드', '스타벅스', '5,600', '', '2,994,400'],
        ['2026.05.15 08:00:00', '출금취소', '스타벅스', '', '5,600', '3,000,000'],
        ['2026.05.15 09:00:00', '이자', '', '0', '0', '3,000,000'],
      ],
    );
    const out = lines(t);
    expect(out.map((l) => [l.kind, l.type, l.amount, l.cancellation, l.balance])).toEqual([
      ['TRANSACTION', 'INCOME', 3000000, false, 3000000],
      ['TRANSACTION', 'EXPENSE', 5600, false, 2994400],
      ['TRANSACTION', 'EXPENSE', 5600, true, 3000000],
      ['SKIPPED', null, null, false, null],
    ]);
    expect(out[1]!.time).toBe('12:31:05');
  });

  it('reads a status column as cancellation and a signed amount column by its sign', () => {
    const t = table(
      ['거래일시', '거래구분', '거래금액', '거래후잔액', '내용', '메모'],
      [
        ['2026-05-14 12:00', '입금', '50,000', '50,000', '홍길동', ''],
        ['2026-05-14 13:00', '출금', '-5,600', '44,400', '스타벅스', ''],
        ['2026-05-14 14:00', '결제취소', '5,600', '50,000', '스타벅스', ''],
      ],
    );
    expect(lines(t).map((l) => [l.type, l.amount, l.cancellation, l.description])).toEqual([
      ['INCOME', 50000, false, '홍길동'],
      ['EXPENSE', 5600, false, '스타벅스'],
      ['EXPENSE', 5600, true, '스타벅스'],
    ]);
  });

  it('reads 해외이용 rows: currency and foreign amount, the won amount when given', () => {
    const t = table(
      ['이용일', '가맹점', '이용금액 원화', '이용금액 현지', '통화'],
      [
        ['2026-05-14', '스타벅스', '5,600', '5,600', 'KRW'],
        ['2026-05-14', 'AMAZON', '16,520', '12.34', 'USD'],
        ['2026-05-15', 'UBER', '', '1,250.00', 'JPY'],
        ['2026-05-16', 'AMAZON', '-16,520', '-12.34', 'USD'],
        ['2026-05-16', 'X', '1,000', '1.00', '???'],
      ],
    );
    expect(lines(t).map((l) => [l.kind, l.amount, l.currency, l.originalAmount, l.cancellation])).toEqual([
      ['TRANSACTION', 5600, null, null, false],
      ['TRANSACTION', 16520, 'USD', '12.34', false],
      ['TRANSACTION', null, 'JPY', '1250.00', false],
      ['TRANSACTION', 16520, 'USD', '12.34', true],
      ['INVALID', null, null, null, false],
    ]);
  });

  it('reads a foreign bank CSV in its own currency: no won amount, the original amount kept, the balance as shown', () => {
    const t = table(
      ['Date', 'Description', 'Amount', 'Balance'],
      [
        ['2026-05-14', 'Coffee', '-4.50', '95.50'],
        ['2026-05-15', 'Refund', '10.00', '105.50'],
      ],
    );
    expect(
      lines(t, { defaultCurrency: 'USD' }).map((l) => [l.type, l.amount, l.currency, l.originalAmount, l.balance]),
    ).toEqual([
      ['EXPENSE', null, 'USD', '4.50', 95.5],
      ['INCOME', null, 'USD', '10.00', 105.5],
    ]);
  });

  it('gives dates without a year the year of the statement period, else of the reference date', () => {
    const rows = [
      ['12월30일', 'x', '1,000', '', '', ''],
      ['01월02일', 'y', '2,000', '', '', ''],
    ];
    expect(lines(table(CARD, rows, { period: { from: '2025-12-01', to: '2026-01-31' } })).map((l) => l.date)).toEqual([
      '2025-12-30',
      '2026-01-02',
    ]);
    expect(lines(table(CARD, rows), { referenceDate: '2026-01-15' }).map((l) => l.date)).toEqual([
      '2025-12-30',
      '2026-01-02',
    ]);
    expect(lines(table(CARD, rows)).map((l) => l.kind)).toEqual(['INVALID', 'INVALID']);
  });

  it('reads dates under the order it is given', () => {
    const t = table(['Date', 'Description', 'Amount'], [['03/04/2026', 'x', '1']]);
    expect(normalizeRows(t, proposeMapping(t).mapping, { dateOrder: 'DMY', defaultCurrency: 'KRW' })[0]!.date).toBe(
      '2026-04-03',
    );
    expect(normalizeRows(t, proposeMapping(t).mapping, { dateOrder: 'MDY', defaultCurrency: 'KRW' })[0]!.date).toBe(
      '2026-03-04',
    );
  });

  it('skips a zero amount and refuses both a withdrawal and a deposit, or a deposit with a fraction of a won', () => {
    const t = table(
      ['일자', '내용', '출금', '입금'],
      [
        ['2026-05-14', 'x', '0', ''],
        ['2026-05-14', 'y', '1', '2'],
        ['2026-05-14', 'z', '', ''],
        ['2026-05-14', 'w', '', '2.5'],
      ],
    );
    expect(lines(t).map(pick)).toEqual([
      { kind: 'SKIPPED', date: null, type: null, amount: null, cancellation: false, reason: 'the amount is 0' },
      {
        kind: 'INVALID',
        date: null,
        type: null,
        amount: null,
        cancellation: false,
        reason: 'the row has both a withdrawal and a deposit',
      },
      {
        kind: 'INVALID',
        date: null,
        type: null,
        amount: null,
        cancellation: false,
        reason: 'the row has neither a withdrawal nor a deposit',
      },
      {
        kind: 'INVALID',
        date: null,
        type: null,
        amount: null,
        cancellation: false,
        reason: 'the amount "2.5" is not a whole number of won',
      },
    ]);
  });

  it('is deterministic: the same table gives the same lines', () => {
    const t = table(CARD, [['2026.05.14', '쿠팡', '120,000', '3', '1', '']]);
    expect(lines(t)).toEqual(lines(structuredClone(t)));
  });
});

describe('installments', () => {
  it.each([
    ['일시불', null],
    ['', null],
    ['0', null],
    ['1', null],
    ['3', 3],
    ['03', 3],
    ['3개월', 3],
    ['할부(3개월)', 3],
    ['12개월 무이자', 12],
    ['1/3', 3],
    ['24', 24],
    ['36', null],
  ])('%j → %s', (cell, months) => {
    expect(installments(cell)).toBe(months);
  });
});

describe('normalizeRows, settled cases', () => {
  it('reads a 취소여부 flag (Y) as a cancellation, N or blank as none', () => {
    const t = table(
      ['이용일자', '가맹점명', '이용금액', '승인번호', '취소여부'],
      [
        ['2026-03-05', '쿠팡', '39,800', '30020419', ''],
        ['2026-03-07', '쿠팡', '39,800', '30020419', 'Y'],
        ['2026-03-08', 'GS25', '3,200', '30031205', 'N'],
      ],
    );
    expect(lines(t).map((l) => [l.type, l.amount, l.cancellation])).toEqual([
      ['EXPENSE', 39800, false],
      ['EXPENSE', 39800, true],
      ['EXPENSE', 3200, false],
    ]);
  });

  it('skips 소계/합계 rows whose label has a prefix or a count (본인회원 소계 6 건, 합 계 6 건)', () => {
    const t = table(
      ['이용일자', '가맹점', '이용금액'],
      [
        ['26.02.03', '이마트24', '5600'],
        ['본인회원  소계 6 건', '', '5600'],
        ['합 계 6 건', '', '5600'],
      ],
    );
    expect(lines(t).map((l) => l.kind)).toEqual(['TRANSACTION', 'SKIPPED', 'SKIPPED']);
  });

  it('reads rows with only a foreign amount and its currency: foreign lines, a KRW one local, 취소 a cancellation', () => {
    const t = table(
      ['취소구분', '승인일자', '가맹점명', '승인금액(USD)', '현지이용금액', '현지거래통화'],
      [
        ['정상', '2026-03-10', 'HOTEL', '213.45', '32,000', 'JPY'],
        ['정상', '2026-03-15', 'AIRBNB', '148.2', '198,000', 'KRW'],
        ['취소', '2026-03-16', 'AMAZON', '45.9', '45.90', 'USD'],
      ],
    );
    expect(lines(t).map((l) => [l.type, l.amount, l.currency, l.originalAmount, l.cancellation])).toEqual([
      ['EXPENSE', null, 'JPY', '32000', false],
      ['EXPENSE', 198000, null, null, false],
      ['EXPENSE', null, 'USD', '45.90', true],
    ]);
  });

  it('takes the currency a header names for its amount column (Amount (USD)) over the default', () => {
    const t = table(
      ['Date', 'Description', 'Amount (USD)'],
      [
        ['2026-05-14', 'Coffee', '-4.50'],
        ['2026-05-14', 'Bagel', '-3.25'],
        ['2026-05-15', 'Salary', '10.00'],
      ],
    );
    expect(lines(t).map((l) => [l.kind, l.type, l.amount, l.currency, l.originalAmount])).toEqual([
      ['TRANSACTION', 'EXPENSE', null, 'USD', '4.50'],
      ['TRANSACTION', 'EXPENSE', null, 'USD', '3.25'],
      ['TRANSACTION', 'INCOME', null, 'USD', '10.00'],
    ]);
  });

  it('reads an OFX TRNTYPE as the direction of an unsigned amount', () => {
    const t = table(
      ['DTPOSTED', 'TRNAMT', 'NAME', 'MEMO', 'FITID', 'TRNTYPE'],
      [
        ['2026-03-02', '12.50', 'COFFEE', '', '1', 'DEBIT'],
        ['2026-03-03', '100.00', 'PAYROLL', '', '2', 'CREDIT'],
      ],
      { format: 'OFX', currency: 'USD', accountType: 'BANK' },
    );
    expect(lines(t).map((l) => [l.type, l.originalAmount, l.cancellation])).toEqual([
      ['EXPENSE', '12.50', false],
      ['INCOME', '100.00', false],
    ]);
  });

  it("skips a card OFX's bill payment (TRNTYPE PAYMENT, Payment Thank You): a credit that is no refund", () => {
    const t = table(
      ['DTPOSTED', 'TRNAMT', 'NAME', 'MEMO', 'FITID', 'TRNTYPE'],
      [
        ['2026-03-02', '-64.20', 'WHOLEFDS MKT 10231', '', '1', 'DEBIT'],
        ['2026-03-05', '64.20', 'WHOLEFDS MKT 10231', '', '2', 'CREDIT'],
        ['2026-03-20', '500.00', 'Payment Thank You-Mobile', '', '3', 'CREDIT'],
        ['2026-03-21', '250.00', 'ONLINE TRANSFER', '', '4', 'PAYMENT'],
      ],
      { format: 'OFX', currency: 'USD', accountType: 'CARD' },
    );
    expect(lines(t).map((l) => [l.kind, l.type, l.cancellation])).toEqual([
      ['TRANSACTION', 'EXPENSE', false],
      ['TRANSACTION', 'EXPENSE', true],
      ['SKIPPED', null, false],
      ['SKIPPED', null, false],
    ]);
  });

  it('marks a fee-only row INVALID and names the fee (롯데카드: only 수수료 990)', () => {
    const t = table(
      ['이용일', '이용가맹점', '이용총액', '이번 달 입금하실 금액 원금', '이번 달 입금하실 금액 수수료'],
      [
        ['2026.03.04', '세븐일레븐', '2,800원', '2,800', ''],
        ['2026.03.11', '03월 카드안심서비스', '', '', '990'],
      ],
    );
    const [purchase, fee] = lines(t);
    expect(purchase).toMatchObject({ kind: 'TRANSACTION', amount: 2800 });
    expect(fee).toMatchObject({ kind: 'INVALID' });
    expect(fee!.reason).toContain('990');
  });
});
