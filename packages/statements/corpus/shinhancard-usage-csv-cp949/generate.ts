/**
 * 신한카드 이용내역 (approval history), CSV, CP949. Writes statement.csv and expected.json from the rows below.
 * Every value is invented (see SOURCE.md). Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { cancelled, expense, mapping, row, skipped, writeExpected } from '../lib/expected';
import { shapeDir, writeDelimited } from '../lib/write';

const dir = shapeDir(import.meta.url);
const CARD = '1234-****-****-5678';

const header = ['이용일자', '이용시간', '카드번호', '가맹점명', '이용금액', '할부개월', '승인번호', '취소여부'];

const rows = [
  // Two identical purchases on one day: same merchant, same amount, two approval numbers. Two lines.
  row(
    ['2026-03-02', '12:31:10', CARD, '스타벅스 역삼점', '4,500', '일시불', '30011021', ''],
    expense('2026-03-02', '스타벅스 역삼점', 4500, { time: '12:31:10', card: CARD, transactionId: '30011021' }),
  ),
  row(
    ['2026-03-02', '12:33:02', CARD, '스타벅스 역삼점', '4,500', '일시불', '30011087', ''],
    expense('2026-03-02', '스타벅스 역삼점', 4500, { time: '12:33:02', card: CARD, transactionId: '30011087' }),
  ),
  row(
    ['2026-03-03', '19:05:11', CARD, '이마트 성수점', '87,340', '일시불', '30015533', ''],
    expense('2026-03-03', '이마트 성수점', 87340, { time: '19:05:11', card: CARD, transactionId: '30015533' }),
  ),
  row(
    ['2026-03-05', '21:40:02', CARD, '쿠팡', '39,800', '일시불', '30020419', ''],
    expense('2026-03-05', '쿠팡', 39800, { time: '21:40:02', card: CARD, transactionId: '30020419' }),
  ),
  // 할부: 3개월.
  row(
    ['2026-03-06', '10:15:37', CARD, '롯데하이마트 강남점', '1,290,000', '3개월', '30024877', ''],
    expense('2026-03-06', '롯데하이마트 강남점', 1290000, {
      time: '10:15:37',
      card: CARD,
      transactionId: '30024877',
      installmentMonths: 3,
    }),
  ),
  // The 쿠팡 purchase of 03-05 cancelled two days later: same approval number, 취소여부 Y, amount written positive.
  row(
    ['2026-03-07', '14:02:19', CARD, '쿠팡', '39,800', '일시불', '30020419', 'Y'],
    cancelled('2026-03-07', '쿠팡', 39800, { time: '14:02:19', card: CARD, transactionId: '30020419' }),
  ),
  row(
    ['2026-03-08', '23:11:50', CARD, 'GS25 역삼점', '3,200', '일시불', '30031205', ''],
    expense('2026-03-08', 'GS25 역삼점', 3200, { time: '23:11:50', card: CARD, transactionId: '30031205' }),
  ),
  row(
    ['2026-03-09', '18:47:03', CARD, '배달의민족', '28,500', '일시불', '30034410', ''],
    expense('2026-03-09', '배달의민족', 28500, { time: '18:47:03', card: CARD, transactionId: '30034410' }),
  ),
  // Trailing total: purchases less the cancellation.
  row(['합계', '', '', '', '1,418,040', '', '', ''], skipped('summary row: 합계')),
];

const rowNumbers = writeDelimited(
  join(dir, 'statement.csv'),
  {
    preamble: [['신한카드 이용내역'], ['조회기간 : 2026-03-01 ~ 2026-03-31']],
    header,
    rows: rows.map((r) => r.cells),
    delimiter: ',',
  },
  'CP949',
);

writeExpected(
  dir,
  {
    format: 'CSV',
    encoding: 'CP949',
    delimiter: ',',
    sheet: null,
    headerRow: 2,
    mapping: mapping({
      date: 0,
      time: 1,
      card: 2,
      description: 3,
      amount: 4,
      sign: 'POSITIVE_IS_EXPENSE',
      installments: 5,
      transactionId: 6,
      status: 7,
    }),
    dateOrder: 'YMD',
  },
  rows.map((r) => r.line),
  rowNumbers,
);
