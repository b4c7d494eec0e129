/**
 * 토스뱅크 거래내역, XLSX: title and account lines above the header, newest first, one signed amount column.
 * Writes statement.xlsx and expected.json. Every value is invented (see SOURCE.md).
 * Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { expense, income, mapping, row, writeExpected } from '../lib/expected';
import { type Cell, shapeDir, writeXlsx } from '../lib/write';

const dir = shapeDir(import.meta.url);
const SHEET = '거래내역';

const title: Cell[][] = [
  ['토스뱅크 거래내역'],
  [],
  ['예금주', '김*서'],
  ['계좌번호', '1000-****-5521'],
  ['조회기간', '2026.03.01 ~ 2026.03.31'],
  [],
];
const header = ['거래 일시', '적요', '거래 유형', '거래 기관', '계좌번호', '거래 금액', '거래 후 잔액', '메모'];

// Newest first, as the app lists them. 계좌번호 is the other party's account, not this one's.
const rows = [
  row(
    ['2026.03.28 19:40:02', '쿠팡', '체크카드', '', '', -15800, 1230400, ''],
    expense('2026-03-28', '쿠팡', 15800, { time: '19:40:02', balance: 1230400 }),
  ),
  row(
    ['2026.03.25 09:00:00', '김지훈', '입금', '국민은행', '123456-**-***567', 500000, 1246200, '용돈'],
    income('2026-03-25', '김지훈', 500000, { time: '09:00:00', balance: 1246200 }),
  ),
  row(
    ['2026.03.21 12:00:01', '토스뱅크', '이자', '', '', 312, 746200, ''],
    income('2026-03-21', '토스뱅크', 312, { time: '12:00:01', balance: 746200 }),
  ),
  row(
    ['2026.03.15 08:30:10', '서울도시가스', '자동이체', '신한은행', '', -42180, 745888, ''],
    expense('2026-03-15', '서울도시가스', 42180, { time: '08:30:10', balance: 745888 }),
  ),
  row(
    ['2026.03.03 21:17:45', '이마트 성수점', '체크카드', '', '', -63720, 788068, '장보기'],
    expense('2026-03-03', '이마트 성수점', 63720, { time: '21:17:45', balance: 788068 }),
  ),
];

await writeXlsx(join(dir, 'statement.xlsx'), [
  {
    name: SHEET,
    rows: [...title, header, ...rows.map((r) => r.cells)],
    numFmt: { 5: '#,##0', 6: '#,##0' },
    widths: [20, 18, 10, 10, 18, 12, 14, 12],
  },
]);

writeExpected(
  dir,
  {
    format: 'XLSX',
    encoding: null,
    delimiter: null,
    sheet: SHEET,
    headerRow: title.length,
    // 거래 유형 (체크카드, 입금, 자동이체) is read as a status column: a 취소 there would cancel. 계좌번호 is not the card.
    mapping: mapping({ date: 0, description: 1, status: 2, amount: 5, sign: 'NEGATIVE_IS_EXPENSE', balance: 6 }),
    dateOrder: 'YMD',
  },
  rows.map((r) => r.line),
  rows.map((_, i) => title.length + 2 + i),
);
