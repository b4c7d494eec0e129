import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encode } from './files.fixture.js';
import { normalizeRows, proposeMapping, readStatement, StatementError } from './index.js';
import { table } from './table.fixture.js';

const HEADERS = [
  '이용일자',
  '거래일시',
  '가맹점명',
  '내용',
  '적요',
  '이용금액',
  '출금액',
  '입금액',
  '잔액',
  '할부',
  '통화',
  '현지금액',
  '상태',
  '승인번호',
  'Date',
  'Amount',
  '비고',
];
const CELLS = [
  '',
  ' ',
  '2026.05.14',
  '05월14일',
  '01/02/2026',
  '26/05/14',
  '20260514',
  '2026-02-30',
  '12:31',
  '5,600',
  '-5,600',
  '(1,200)',
  '12.34',
  '1.234,56',
  'USD',
  '???',
  '취소',
  '승인취소',
  '입금',
  '출금',
  '일시불',
  '3개월',
  '합계',
  '총 이용금액',
  '스타벅스',
  '이용일자',
  '△300',
  '9'.repeat(30),
  '\u0000',
  '😀',
];

describe('robustness', () => {
  it('proposeMapping and normalizeRows never throw, and every transaction is complete (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...HEADERS), { minLength: 1, maxLength: 8 }),
        fc.array(fc.array(fc.constantFrom(...CELLS), { maxLength: 9 }), { maxLength: 15 }),
        fc.constantFrom('YMD', 'DMY', 'MDY'),
        fc.option(fc.constant('2026-06-30'), { nil: undefined }),
        (header, rows, order, referenceDate) => {
          const t = table(header, rows);
          const { mapping } = proposeMapping(t);
          const lines = normalizeRows(t, mapping, { dateOrder: order as 'YMD', defaultCurrency: 'KRW', referenceDate });
          expect(lines).toHaveLength(rows.length);
          for (const line of lines) {
            if (line.kind === 'TRANSACTION') {
              expect(line.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
              expect(line.type).not.toBeNull();
              expect(
                line.amount === null ? line.originalAmount : line.amount > 0 && Number.isSafeInteger(line.amount),
              ).toBeTruthy();
              if (line.currency) expect(line.currency).not.toBe('KRW');
            } else {
              expect(line.reason).toBeTruthy();
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('readStatement throws nothing but StatementError, whatever the bytes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc
            .array(fc.array(fc.constantFrom(...CELLS, ...HEADERS), { maxLength: 6 }), { maxLength: 8 })
            .map((rows) => encode(rows.map((r) => r.join(',')).join('\n'), 'cp949')),
          fc.string({ maxLength: 200 }).map((s) => encode(`<table><tr><td>${s}</td></tr></table>`, 'utf8')),
          fc.string({ maxLength: 200 }).map((s) => encode(`OFXHEADER:100\n<OFX><STMTTRN>${s}`, 'utf8')),
        ),
        fc.constantFrom('a.csv', 'a.xls', 'a.xlsx', 'a.ofx'),
        async (bytes, name) => {
          try {
            await readStatement(bytes, name);
          } catch (e) {
            expect(e).toBeInstanceOf(StatementError);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
