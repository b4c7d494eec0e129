/**
 * 삼성카드 이용내역 (국내), XLSX. Writes statement.xlsx and expected.json from the rows below.
 * Every value is invented (see SOURCE.md). Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { cancelled, expense, mapping, row, writeExpected } from '../lib/expected';
import { day, shapeDir, writeXlsx } from '../lib/write';

const dir = shapeDir(import.meta.url);
const MINE = '5310-****-****-2219';
const FAMILY = '5310-****-****-7741';
const SHEET = '■ 국내이용내역';

const header = [
  '카드번호',
  '본인가족구분',
  '승인일자',
  '승인시각',
  '가맹점명',
  '승인금액(원)',
  '일시불할부구분',
  '할부개월',
  '승인번호',
  '취소여부',
  '사용포인트',
  '결제일',
];

const rows = [
  row(
    [
      MINE,
      '본인',
      day('2026-03-01'),
      '09:14:22',
      '올리브영 강남역점',
      23400,
      '일시불',
      0,
      '41827733',
      'N',
      0,
      '2026.04.14',
    ],
    expense('2026-03-01', '올리브영 강남역점', 23400, { time: '09:14:22', card: MINE, transactionId: '41827733' }),
  ),
  row(
    [
      MINE,
      '본인',
      day('2026-03-02'),
      '13:05:40',
      '김밥천국 역삼점',
      8000,
      '일시불',
      0,
      '41830192',
      'N',
      0,
      '2026.04.14',
    ],
    expense('2026-03-02', '김밥천국 역삼점', 8000, { time: '13:05:40', card: MINE, transactionId: '41830192' }),
  ),
  // A family card's purchase…
  row(
    [
      FAMILY,
      '가족',
      day('2026-03-03'),
      '17:22:09',
      '교보문고 광화문점',
      45000,
      '일시불',
      0,
      '41833520',
      'N',
      0,
      '2026.04.14',
    ],
    expense('2026-03-03', '교보문고 광화문점', 45000, { time: '17:22:09', card: FAMILY, transactionId: '41833520' }),
  ),
  // 할부 6개월.
  row(
    [MINE, '본인', day('2026-03-04'), '11:48:31', '한샘 논현점', 1800000, '할부', 6, '41836011', 'N', 0, '2026.04.14'],
    expense('2026-03-04', '한샘 논현점', 1800000, {
      time: '11:48:31',
      card: MINE,
      transactionId: '41836011',
      installmentMonths: 6,
    }),
  ),
  // …cancelled two days later: same approval number, 취소여부 Y and the amount written negative. One cancellation, amount > 0.
  row(
    [
      FAMILY,
      '가족',
      day('2026-03-05'),
      '10:02:15',
      '교보문고 광화문점',
      -45000,
      '일시불',
      0,
      '41833520',
      'Y',
      0,
      '2026.04.14',
    ],
    cancelled('2026-03-05', '교보문고 광화문점', 45000, { time: '10:02:15', card: FAMILY, transactionId: '41833520' }),
  ),
  row(
    [MINE, '본인', day('2026-03-06'), '07:55:03', '카카오T 택시', 14300, '일시불', 0, '41840877', 'N', 0, '2026.04.14'],
    expense('2026-03-06', '카카오T 택시', 14300, { time: '07:55:03', card: MINE, transactionId: '41840877' }),
  ),
  row(
    [MINE, '본인', day('2026-03-06'), '20:31:44', 'CU 선릉점', 6750, '일시불', 0, '41841502', 'N', 120, '2026.04.14'],
    expense('2026-03-06', 'CU 선릉점', 6750, { time: '20:31:44', card: MINE, transactionId: '41841502' }),
  ),
  row(
    [MINE, '본인', day('2026-03-07'), '12:10:59', '넷플릭스', 17000, '일시불', 0, '41843390', 'N', 0, '2026.04.14'],
    expense('2026-03-07', '넷플릭스', 17000, { time: '12:10:59', card: MINE, transactionId: '41843390' }),
  ),
];

await writeXlsx(join(dir, 'statement.xlsx'), [
  {
    name: SHEET,
    rows: [header, ...rows.map((r) => r.cells)],
    numFmt: { 2: 'yyyy.mm.dd', 5: '#,##0', 10: '#,##0' },
    widths: [22, 12, 12, 10, 22, 14, 14, 9, 12, 9, 11, 12],
  },
]);

writeExpected(
  dir,
  {
    format: 'XLSX',
    encoding: null,
    delimiter: null,
    sheet: SHEET,
    headerRow: 0,
    mapping: mapping({
      card: 0,
      date: 2,
      time: 3,
      description: 4,
      amount: 5,
      sign: 'POSITIVE_IS_EXPENSE',
      installments: 7,
      transactionId: 8,
      status: 9,
    }),
    dateOrder: 'YMD',
  },
  rows.map((r) => r.line),
  rows.map((_, i) => i + 2),
);
