/**
 * 삼성카드 이용내역 (해외), XLSX. Writes statement.xlsx and expected.json from the rows below.
 * Every value is invented (see SOURCE.md). Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { cancelled, expense, mapping, row, writeExpected } from '../lib/expected';
import { day, shapeDir, writeXlsx } from '../lib/write';

const dir = shapeDir(import.meta.url);
const CARD = '5310-****-****-2219';
const SHEET = '■ 해외이용내역';

const header = [
  '카드번호',
  '취소구분',
  '본인가족구분',
  '승인일자',
  '승인시각',
  '업종',
  '가맹점명',
  '승인금액(USD)',
  '현지이용금액',
  '현지거래통화',
  '승인번호',
];

/** A purchase abroad: no won amount in this file (it is billed later at the day's rate). */
const abroad = (date: string, time: string, name: string, currency: string, original: string, id: string) =>
  expense(date, name, 0, { amount: null, time, card: CARD, currency, originalAmount: original, transactionId: id });

const rows = [
  row(
    [
      CARD,
      '정상',
      '본인',
      day('2026-03-10'),
      '15:20:11',
      '숙박',
      'HOTEL NIKKO OSAKA',
      213.45,
      '32,000',
      'JPY',
      '72110345',
    ],
    abroad('2026-03-10', '15:20:11', 'HOTEL NIKKO OSAKA', 'JPY', '32000', '72110345'),
  ),
  row(
    [
      CARD,
      '정상',
      '본인',
      day('2026-03-11'),
      '12:03:55',
      '일반음식점',
      'ICHIRAN DOTONBORI',
      9.85,
      '1,480',
      'JPY',
      '72113870',
    ],
    abroad('2026-03-11', '12:03:55', 'ICHIRAN DOTONBORI', 'JPY', '1480', '72113870'),
  ),
  row(
    [
      CARD,
      '정상',
      '본인',
      day('2026-03-11'),
      '19:44:02',
      '의류',
      'UNIQLO SHINSAIBASHI',
      66.6,
      '9,990',
      'JPY',
      '72114402',
    ],
    abroad('2026-03-11', '19:44:02', 'UNIQLO SHINSAIBASHI', 'JPY', '9990', '72114402'),
  ),
  row(
    [CARD, '정상', '본인', day('2026-03-14'), '03:12:48', '인터넷쇼핑', 'AMAZON.COM', 45.9, '45.90', 'USD', '72120019'],
    abroad('2026-03-14', '03:12:48', 'AMAZON.COM', 'USD', '45.90', '72120019'),
  ),
  // Paid abroad in won (the merchant converted): the local amount is in KRW, so the row is a local one.
  row(
    [
      CARD,
      '정상',
      '본인',
      day('2026-03-15'),
      '09:30:27',
      '숙박',
      'AIRBNB * HMQ2T8',
      148.2,
      '198,000',
      'KRW',
      '72121577',
    ],
    expense('2026-03-15', 'AIRBNB * HMQ2T8', 198000, { time: '09:30:27', card: CARD, transactionId: '72121577' }),
  ),
  // The AMAZON.COM purchase cancelled (취소구분 취소): a foreign cancellation, no won amount.
  row(
    [CARD, '취소', '본인', day('2026-03-16'), '08:05:10', '인터넷쇼핑', 'AMAZON.COM', 45.9, '45.90', 'USD', '72120019'],
    cancelled('2026-03-16', 'AMAZON.COM', null, {
      time: '08:05:10',
      card: CARD,
      currency: 'USD',
      originalAmount: '45.90',
      transactionId: '72120019',
    }),
  ),
];

await writeXlsx(join(dir, 'statement.xlsx'), [
  {
    name: SHEET,
    rows: [header, ...rows.map((r) => r.cells)],
    numFmt: { 3: 'yyyy.mm.dd', 7: '#,##0.00' },
    widths: [22, 9, 12, 12, 10, 12, 24, 14, 13, 12, 12],
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
      status: 1,
      date: 3,
      time: 4,
      description: 6,
      foreignAmount: 8,
      currency: 9,
      transactionId: 10,
    }),
    dateOrder: 'YMD',
  },
  rows.map((r) => r.line),
  rows.map((_, i) => i + 2),
);
