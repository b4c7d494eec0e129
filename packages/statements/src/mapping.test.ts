import { describe, expect, it } from 'vitest';
import { proposeMapping } from './mapping.js';
import { table } from './table.fixture.js';

describe('proposeMapping', () => {
  it('maps a Korean card statement', () => {
    const p = proposeMapping(
      table(
        [
          '이용일자',
          '이용시간',
          '이용카드',
          '가맹점명',
          '이용금액(원)',
          '할부개월',
          '승인번호',
          '취소여부',
          '결제예정금액',
        ],
        [['2026.05.14', '12:31', '1234-****-****-5678', '스타벅스', '5,600', '일시불', '1001', '', '5,600']],
      ),
    );
    expect(p).toEqual({
      mapping: {
        date: 0,
        time: 1,
        amount: 4,
        sign: 'POSITIVE_IS_EXPENSE',
        withdrawal: null,
        deposit: null,
        description: 3,
        transactionId: 6,
        installments: 5,
        currency: null,
        foreignAmount: null,
        card: 2,
        balance: null,
        status: 7,
      },
      dateOrder: 'YMD',
      candidates: ['YMD'],
    });
  });

  it('maps a Korean bank statement with 출금/입금 and prefers 내용 over 적요', () => {
    const { mapping } = proposeMapping(
      table(
        ['거래일시', '적요', '기재내용', '출금액(원)', '입금액(원)', '거래후잔액', '취급점'],
        [['2026.05.14 12:31:05', '체크', '스타벅스', '5,600', '0', '994,400', '강남']],
      ),
    );
    expect(mapping).toMatchObject({
      date: 0,
      time: null,
      amount: null,
      sign: null,
      withdrawal: 3,
      deposit: 4,
      description: 2,
      balance: 5,
      status: 1,
    });
  });

  it('maps the foreign columns of a 해외이용 statement', () => {
    const { mapping } = proposeMapping(
      table(
        ['이용일', '가맹점', '이용금액 원화', '이용금액 현지', '통화', '해외이용수수료'],
        [['2026-05-14', 'AMAZON', '16,520', '12.34', 'USD', '170']],
      ),
    );
    expect(mapping).toMatchObject({ amount: 2, foreignAmount: 3, currency: 4 });
  });

  it('maps an English bank CSV; a signed amount with a balance is NEGATIVE_IS_EXPENSE', () => {
    const p = proposeMapping(
      table(
        ['Date', 'Description', 'Amount', 'Running Bal.'],
        [
          ['01/02/2026', 'Coffee', '-4.50', '995.50'],
          ['13/02/2026', 'Salary', '3000.00', '3995.50'],
        ],
      ),
    );
    expect(p.mapping).toMatchObject({ date: 0, description: 1, amount: 2, sign: 'NEGATIVE_IS_EXPENSE', balance: 3 });
    expect(p.dateOrder).toBe('DMY');
  });

  it('a single amount column, mostly negative, is NEGATIVE_IS_EXPENSE; mostly positive POSITIVE_IS_EXPENSE', () => {
    const rows = (...amounts: string[]) => amounts.map((a) => ['2026-05-14', 'x', a]);
    expect(proposeMapping(table(['Date', 'Payee', 'Amount'], rows('-1', '-2', '3'))).mapping.sign).toBe(
      'NEGATIVE_IS_EXPENSE',
    );
    expect(proposeMapping(table(['Date', 'Payee', 'Amount'], rows('1', '2', '-3'))).mapping.sign).toBe(
      'POSITIVE_IS_EXPENSE',
    );
  });

  it('finds columns the header does not name from the data', () => {
    const { mapping } = proposeMapping(
      table(
        ['Buchungstag', 'Verwendungszweck', 'Betrag'],
        [
          ['2026-05-14', 'Miete', '-850,00'],
          ['2026-05-15', 'Gehalt', '3.200,00'],
        ],
      ),
    );
    expect(mapping).toMatchObject({ date: 0, description: 1, amount: 2 });
  });

  it('returns dateOrder null with the candidates when the dates cannot tell', () => {
    expect(proposeMapping(table(['Date', 'Amount'], [['03/04/2026', '1']]))).toMatchObject({
      dateOrder: null,
      candidates: ['DMY', 'MDY'],
    });
  });
});
