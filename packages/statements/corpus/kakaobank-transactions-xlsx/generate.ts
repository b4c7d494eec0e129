/**
 * 카카오뱅크 거래내역, XLSX: column A empty, a ten-row title block (name, account, period, notes), signed amounts
 * written as text. Writes statement.xlsx and expected.json. Every value is invented (see SOURCE.md).
 * Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { cancelled, expense, income, mapping, row, writeExpected } from '../lib/expected';
import { type Cell, shapeDir, writeXlsx } from '../lib/write';

const dir = shapeDir(import.meta.url);
const SHEET = '카카오뱅크 거래내역';

// Rows 1–10 (row 1, 3, 6 and 10 empty), every cell from column B.
const title: Cell[][] = [
  [],
  [null, '카카오뱅크 거래내역'],
  [],
  [null, '성명', '김*서', '조회기간', '2026.03.01 - 2026.03.31'],
  [null, '계좌번호', '3333-**-***4821', '요청일시', '2026.04.01 09:12:40'],
  [],
  [null, "※ 금액 앞의 '-'는 출금입니다."],
  [null, '※ 이 거래내역은 참고용입니다.'],
  [null, '※ 제출용 서류는 증명서발급 메뉴에서 받으실 수 있습니다.'],
  [],
];
const header = [null, '거래일시', '구분', '거래금액', '거래 후 잔액', '거래구분', '내용', '메모'];

const rows = [
  row(
    [null, '2026.03.01 11:20:41', '출금', '-5,500', '844,500', '체크카드결제', '스타벅스 강남대로점', ''],
    expense('2026-03-01', '스타벅스 강남대로점', 5500, { time: '11:20:41', balance: 844500 }),
  ),
  // The same purchase twice on one day, minutes apart: two lines.
  row(
    [null, '2026.03.03 18:05:12', '출금', '-2,000', '842,500', '체크카드결제', 'GS25 강남역점', ''],
    expense('2026-03-03', 'GS25 강남역점', 2000, { time: '18:05:12', balance: 842500 }),
  ),
  row(
    [null, '2026.03.03 18:09:30', '출금', '-2,000', '840,500', '체크카드결제', 'GS25 강남역점', ''],
    expense('2026-03-03', 'GS25 강남역점', 2000, { time: '18:09:30', balance: 840500 }),
  ),
  row(
    [null, '2026.03.05 09:00:03', '입금', '2,000,000', '2,840,500', '일반입금', '김지훈', '생활비'],
    income('2026-03-05', '김지훈', 2000000, { time: '09:00:03', balance: 2840500 }),
  ),
  row(
    [null, '2026.03.05 09:10:44', '출금', '-1,200,000', '1,640,500', '일반이체', '김영희', '3월 월세'],
    expense('2026-03-05', '김영희', 1200000, { time: '09:10:44', balance: 1640500 }),
  ),
  row(
    [null, '2026.03.08 20:31:09', '출금', '-24,900', '1,615,600', '체크카드결제', '배달의민족', ''],
    expense('2026-03-08', '배달의민족', 24900, { time: '20:31:09', balance: 1615600 }),
  ),
  // The 배달의민족 payment cancelled: money back, and 거래구분 says 체크카드취소.
  row(
    [null, '2026.03.09 14:22:51', '입금', '24,900', '1,640,500', '체크카드취소', '배달의민족', ''],
    cancelled('2026-03-09', '배달의민족', 24900, { time: '14:22:51', balance: 1640500 }),
  ),
  row(
    [null, '2026.03.21 00:05:17', '입금', '1,183', '1,641,683', '예금이자', '입출금통장 이자', ''],
    income('2026-03-21', '입출금통장 이자', 1183, { time: '00:05:17', balance: 1641683 }),
  ),
];

await writeXlsx(join(dir, 'statement.xlsx'), [
  {
    name: SHEET,
    rows: [...title, header, ...rows.map((r) => r.cells)],
    widths: [2, 20, 8, 14, 14, 14, 24, 16],
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
    mapping: mapping({
      date: 1,
      amount: 3,
      sign: 'NEGATIVE_IS_EXPENSE',
      balance: 4,
      status: 5,
      description: 6,
    }),
    dateOrder: 'YMD',
  },
  rows.map((r) => r.line),
  rows.map((_, i) => title.length + 2 + i),
);
