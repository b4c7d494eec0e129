/**
 * KB국민카드 이용대금명세서 (the monthly bill), XLSX with a two-row header and 소계/합계 rows.
 * Writes statement.xlsx and expected.json from the rows below. Every value is invented (see SOURCE.md).
 * Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { cancelled, expense, invalid, mapping, row, skipped, writeExpected } from '../lib/expected';
import { shapeDir, writeXlsx } from '../lib/write';

const dir = shapeDir(import.meta.url);
const CARD = 'VISA418';
const SHEET = '이용대금명세서';

// Row 1 names the column groups; row 2 splits 이번달 결제금액 and 결제 후 잔액 into their parts and repeats the rest.
const header = [
  '이용일자',
  '이용카드',
  '구분',
  '이용하신 가맹점',
  '',
  '이용금액',
  '할부개월',
  '이번달 결제금액',
  '',
  '',
  '결제 후 잔액',
  '',
  '적립예정 포인트',
];
const subHeader = [
  '이용일자',
  '이용카드',
  '구분',
  '이용하신 가맹점',
  '',
  '이용금액',
  '할부개월',
  '회차',
  '원금',
  '수수료(이자)',
  '회차',
  '원금',
  '적립예정 포인트',
];

// The two header rows are read as one (the parts named by their group: `이번달 결제금액 원금`), so `headerRow` is the
// second and the data rows start below it.
const rows = [
  // An instalment bought in November, billed here in its 4th of 6 months; 무이자, so the fee comes back below.
  row(
    ['25.11.21', CARD, '할부', '삼성전자 디지털프라자 강남', '', 1200000, 6, 4, 200000, 5200, 2, 400000, ''],
    expense('2025-11-21', '삼성전자 디지털프라자 강남', 1200000, { card: CARD, installmentMonths: 6 }),
  ),
  // The 무이자 refund of that fee: no date, no card, only a negative fee. Not a ledger line.
  row(
    ['', '', '', '무이자할부금액', '', '', '', '', '', -5200, '', '', ''],
    invalid('the row has no date (an adjustment of the row above: 무이자할부금액 -5,200)'),
  ),
  row(
    ['26.02.03', CARD, '일시불', '이마트24 삼성점', '', 5600, '', '', 5600, '', '', '', 56],
    expense('2026-02-03', '이마트24 삼성점', 5600, { card: CARD }),
  ),
  row(
    ['26.02.05', CARD, '일시불', '쿠팡(쿠페이)', '', 32900, '', '', 32900, '', '', '', 329],
    expense('2026-02-05', '쿠팡(쿠페이)', 32900, { card: CARD }),
  ),
  row(
    ['26.02.11', CARD, '일시불', '스타벅스 삼성역점', '', 4700, '', '', 4700, '', '', '', 47],
    expense('2026-02-11', '스타벅스 삼성역점', 4700, { card: CARD }),
  ),
  // The 02-05 쿠팡 purchase refunded: a negative amount on a card bill is a cancellation.
  row(
    ['26.02.14', CARD, '일시불', '쿠팡(쿠페이)', '', -32900, '', '', -32900, '', '', '', -329],
    cancelled('2026-02-14', '쿠팡(쿠페이)', 32900, { card: CARD }),
  ),
  row(
    ['26.02.20', CARD, '일시불', '래미안아파트 관리비 2월분', '', 238580, '', '', 238580, '', '', '', ''],
    expense('2026-02-20', '래미안아파트 관리비 2월분', 238580, { card: CARD }),
  ),
  // Subtotal per card holder, then the bill's total: the label sits in the date column.
  row(
    ['본인회원  소계 6 건', '', '', '', '', '', '', '', 448880, 0, '', 400000, ''],
    skipped('summary row: 본인회원 소계 6 건'),
  ),
  row(['합 계 6 건', '', '', '', '', '', '', '', 448880, 0, '', 400000, ''], skipped('summary row: 합 계 6 건')),
];

await writeXlsx(join(dir, 'statement.xlsx'), [
  {
    name: SHEET,
    rows: [header, subHeader, ...rows.map((r) => r.cells)],
    numFmt: { 5: '#,##0', 8: '#,##0', 9: '#,##0', 11: '#,##0', 12: '#,##0' },
    widths: [18, 10, 10, 28, 2, 12, 9, 6, 12, 12, 6, 12, 14],
  },
]);

writeExpected(
  dir,
  {
    format: 'XLSX',
    encoding: null,
    delimiter: null,
    sheet: SHEET,
    headerRow: 1,
    mapping: mapping({
      date: 0,
      card: 1,
      // 구분 (일시불/할부 here) is read as a status column: a 취소 there would cancel.
      status: 2,
      description: 3,
      amount: 5,
      sign: 'POSITIVE_IS_EXPENSE',
      installments: 6,
    }),
    dateOrder: 'YMD',
  },
  rows.map((r) => r.line),
  rows.map((_, i) => i + 3),
);
