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

  it('prefers 이용금액 (paid) to 승인금액 (authorised), 할부개월 to 일시불할부구분, 거래구분 to a bare 구분', () => {
    const { mapping } = proposeMapping(
      table(
        ['이용일', '승인금액', '이용금액', '일시불할부구분', '할부개월', '가맹점명'],
        [['2026.05.14', '15,000', '13,500', '할부', '6', '메가박스']],
      ),
    );
    expect(mapping).toMatchObject({ amount: 2, installments: 4 });
    const bank = proposeMapping(
      table(
        ['거래일시', '구분', '거래금액', '거래 후 잔액', '거래구분', '내용'],
        [['2026.05.14 12:31:05', '입금', '24,900', '1,640,500', '체크카드취소', '배달의민족']],
      ),
    );
    expect(bank.mapping).toMatchObject({ amount: 2, status: 4, description: 5 });
  });

  it('reads the transaction date before the booking and value dates, in English and Swedish', () => {
    const erste = proposeMapping(
      table(
        ['Booking Date', 'Amount', 'Currency', 'Partner Name', 'Transaction Date Time'],
        [['2026.03.02', '-4590', 'HUF', 'SPAR', '2026.03.01 14:31:05']],
      ),
    );
    expect(erste.mapping).toMatchObject({ date: 4, amount: 1, currency: 2, description: 3 });
    const swedbank = proposeMapping(
      table(
        ['Valuta', 'Bokföringsdag', 'Transaktionsdag', 'Valutadag', 'Beskrivning', 'Belopp', 'Bokfört saldo'],
        [['SEK', '2026-03-12', '2026-03-11', '2026-03-12', 'ICA', '-342.50', '8105.30']],
      ),
    );
    expect(swedbank.mapping).toMatchObject({ currency: 0, date: 2, description: 4, amount: 5, balance: 6 });
    expect(swedbank.mapping.sign).toBe('NEGATIVE_IS_EXPENSE');
  });

  it('takes a description column that is filled over a better-named one that is blank on some rows', () => {
    const { mapping } = proposeMapping(
      table(
        ['ID', 'Date', 'Amount', 'Currency', 'Description', 'Merchant'],
        [
          ['CARD-1', '2026-03-02', '-4.85', 'USD', 'Card transaction of 4.85 USD issued by Blue Bottle', 'Blue Bottle'],
          ['TRANSFER-2', '2026-03-05', '1000.00', 'USD', 'Received money from KIM JIHOON', ''],
        ],
      ),
    );
    expect(mapping).toMatchObject({ description: 4, transactionId: 0, currency: 3 });
    const merchants = proposeMapping(
      table(['Date', 'Amount', 'Description', 'Merchant'], [['2026-03-02', '-4.85', 'Card', 'Blue Bottle']]),
    );
    expect(merchants.mapping.description).toBe(3);
  });

  it("does not map the other party's account (blank on some rows, or beside its bank) as the card", () => {
    const header = ['거래 일시', '적요', '거래 기관', '계좌번호', '거래 금액', '거래 후 잔액'];
    const rows = [
      ['2026.03.28 19:40:02', '쿠팡', '', '', '-15800', '1230400'],
      ['2026.03.25 09:00:00', '김지훈', '국민은행', '123456-**-***567', '500000', '1246200'],
    ];
    expect(proposeMapping(table(header, rows)).mapping.card).toBeNull();
    const own = proposeMapping(
      table(['거래일자', '계좌번호', '내용', '출금', '입금'], [['2026.03.02', '1002-***-01', '가스', '3,000', '0']]),
    );
    expect(own.mapping.card).toBe(1);
  });

  it('does not take an amount converted into another currency (승인금액(USD)) beside the foreign amount', () => {
    const { mapping } = proposeMapping(
      table(
        ['카드번호', '취소구분', '승인일자', '가맹점명', '승인금액(USD)', '현지이용금액', '현지거래통화', '승인번호'],
        [['5310-****-****-2219', '정상', '2026-03-10', 'HOTEL', '213.45', '32,000', 'JPY', '72110345']],
      ),
    );
    expect(mapping).toMatchObject({ amount: null, sign: null, foreignAmount: 5, currency: 6, status: 1 });
  });
});
