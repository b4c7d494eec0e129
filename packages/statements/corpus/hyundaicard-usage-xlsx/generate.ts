/**
 * 현대카드 이용내역, XLSX with a title block. Writes statement.xlsx and expected.json from the rows below.
 * Every value is invented (see SOURCE.md). Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { cancelled, expense, mapping, row, writeExpected } from '../lib/expected';
import { shapeDir, writeXlsx } from '../lib/write';

const dir = shapeDir(import.meta.url);
const MINE = '4321-****-****-8765';
const FAMILY = '4321-****-****-1098';
const SHEET = '이용내역';

const title = [
  ['현대카드 이용내역'],
  ['기준 일자 : 2026년 03월 01일 ~ 2026년 03월 31일'],
  ['회원 정보 : 김*서 (******)'],
  [],
];
const header = [
  '이용일',
  '카드번호',
  '가맹점명',
  '승인금액',
  '이용금액',
  '부가세',
  '관계',
  '할부',
  '상태',
  '가맹점번호',
  '사업자등록번호',
];

const rows = [
  row(
    ['2026.03.02', MINE, '스타벅스 선릉역점', 6100, 6100, 0, '본인', '', '정상', '870-100201', '101-81-00001'],
    expense('2026-03-02', '스타벅스 선릉역점', 6100, { card: MINE }),
  ),
  row(
    ['2026.03.03', MINE, '쿠팡이츠', 23000, 23000, 0, '본인', '', '정상', '870-100202', '101-81-00002'],
    expense('2026-03-03', '쿠팡이츠', 23000, { card: MINE }),
  ),
  // 승인금액 and 이용금액 differ (a discount at the till): the amount paid is 이용금액.
  row(
    ['2026.03.05', FAMILY, '메가박스 코엑스', 15000, 13500, 0, '가족', '', '정상', '870-100203', '101-81-00003'],
    expense('2026-03-05', '메가박스 코엑스', 13500, { card: FAMILY }),
  ),
  // 할부 3개월, written as a bare 3.
  row(
    [
      '2026.03.07',
      MINE,
      '애플코리아 가로수길',
      1550000,
      1550000,
      140909,
      '본인',
      '3',
      '정상',
      '870-100204',
      '101-81-00004',
    ],
    expense('2026-03-07', '애플코리아 가로수길', 1550000, { card: MINE, installmentMonths: 3 }),
  ),
  row(
    [
      '2026.03.09',
      MINE,
      '현대백화점 무역센터점',
      129000,
      129000,
      11727,
      '본인',
      '',
      '정상',
      '870-100205',
      '101-81-00005',
    ],
    expense('2026-03-09', '현대백화점 무역센터점', 129000, { card: MINE }),
  ),
  // The 03-09 purchase cancelled on 03-12: 상태 취소, amount written positive.
  row(
    [
      '2026.03.12',
      MINE,
      '현대백화점 무역센터점',
      129000,
      129000,
      11727,
      '본인',
      '',
      '취소',
      '870-100205',
      '101-81-00005',
    ],
    cancelled('2026-03-12', '현대백화점 무역센터점', 129000, { card: MINE }),
  ),
  row(
    ['2026.03.14', MINE, 'SK에너지 역삼주유소', 70000, 70000, 6364, '본인', '', '정상', '870-100206', '101-81-00006'],
    expense('2026-03-14', 'SK에너지 역삼주유소', 70000, { card: MINE }),
  ),
];

await writeXlsx(join(dir, 'statement.xlsx'), [
  {
    name: SHEET,
    rows: [...title, header, ...rows.map((r) => r.cells)],
    numFmt: { 3: '#,##0', 4: '#,##0', 5: '#,##0' },
    widths: [12, 22, 24, 12, 12, 10, 8, 8, 8, 12, 14],
  },
]);

writeExpected(
  dir,
  {
    format: 'XLSX',
    encoding: null,
    delimiter: null,
    sheet: SHEET,
    headerRow: 4,
    mapping: mapping({
      date: 0,
      card: 1,
      description: 2,
      amount: 4,
      sign: 'POSITIVE_IS_EXPENSE',
      installments: 7,
      status: 8,
    }),
    dateOrder: 'YMD',
  },
  rows.map((r) => r.line),
  rows.map((_, i) => title.length + 2 + i),
);
