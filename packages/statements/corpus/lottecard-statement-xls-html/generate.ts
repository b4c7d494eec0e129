/**
 * 롯데카드 이용대금명세서 downloaded as "Excel": an .xls whose bytes are an HTML page with two <table>s, a summary and
 * the detail whose header spans two rows (rowspan/colspan). Writes statement.xls and expected.json.
 * Every value is invented (see SOURCE.md). Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { expense, invalid, mapping, row, skipped, writeExpected } from '../lib/expected';
import { type HtmlCell, type HtmlRow, shapeDir, writeHtmlXls } from '../lib/write';

const dir = shapeDir(import.meta.url);
const MINE = '본인 LOCA 365';
const FAMILY = '가족 LOCA 365';

const th = (text: string, span: Partial<HtmlCell> = {}): HtmlCell => ({ text, th: true, ...span });
const both = { rowspan: 2 };

const summary: HtmlRow[] = [
  [th('이용내역'), th('금액')],
  ['일시불', '85,120'],
  ['할부', '96,000'],
  ['수수료', '990'],
  ['합계', '182,110'],
];

// The detail's header: every column spans both header rows except 이번 달 입금하실 금액, split into 원금 / 수수료.
const detailHeader: HtmlRow[] = [
  [
    th('이용일', both),
    th('이용카드', both),
    th('이용가맹점', both),
    th('이용총액', both),
    th('회차', both),
    th('할부', both),
    th('이번 달 입금하실 금액', { colspan: 2 }),
    th('적립예정', both),
    th('이용혜택', both),
    th('혜택금액', both),
    th('결제 후 잔액', both),
  ],
  [th('원금'), th('수수료')],
];

// The two header rows are read as one (`이번 달 입금하실 금액 원금`, `… 수수료`): `headerRow` is the second.
const rows = [
  // A 10-month instalment from February in its 2nd month. 이용총액 carries a thousands separator and 원.
  row<string | HtmlCell>(
    ['2026.02.11', MINE, '한샘몰', '960,000원', '2', '10', '96,000', '', '', '무이자할부', '7,320', '768,000'],
    expense('2026-02-11', '한샘몰', 960000, { card: MINE, installmentMonths: 10 }),
  ),
  row<string | HtmlCell>(
    ['2026.03.02', MINE, '롯데마트 잠실점', '54,320원', '', '', '54,320', '', '543', '', '', ''],
    expense('2026-03-02', '롯데마트 잠실점', 54320, { card: MINE }),
  ),
  row<string | HtmlCell>(
    ['2026.03.04', MINE, '세븐일레븐 잠실역점', '2,800원', '', '', '2,800', '', '28', '', '', ''],
    expense('2026-03-04', '세븐일레븐 잠실역점', 2800, { card: MINE }),
  ),
  row<string | HtmlCell>(
    ['2026.03.06', FAMILY, '롯데시네마 월드타워', '28,000원', '', '', '28,000', '', '280', '', '', ''],
    expense('2026-03-06', '롯데시네마 월드타워', 28000, { card: FAMILY }),
  ),
  // A fee-only row: no 이용총액, only 수수료 990. Under a single amount column (이용총액) it has no amount.
  row<string | HtmlCell>(
    ['2026.03.11', MINE, '03월 카드안심서비스', '', '', '', '', '990', '', '', '', ''],
    invalid('the amount is empty (a fee-only row: 수수료 990)'),
  ),
  row<string | HtmlCell>(
    [{ text: '합계', colspan: 3 }, '1,045,120원', '', '', '181,120', '990', '851', '', '7,320', '768,000'],
    skipped('summary row: 합계'),
  ),
];

const rowNumbers = writeHtmlXls(
  join(dir, 'statement.xls'),
  {
    title: '이용대금명세서',
    charset: 'utf-8',
    tables: [{ rows: summary }, { rows: [...detailHeader, ...rows.map((r) => r.cells)] }],
  },
  'UTF-8',
  { table: 1, headerRows: 2 },
);

writeExpected(
  dir,
  {
    format: 'HTML',
    encoding: 'UTF-8',
    delimiter: null,
    sheet: null,
    headerRow: summary.length + 1,
    mapping: mapping({
      date: 0,
      card: 1,
      description: 2,
      amount: 3,
      sign: 'POSITIVE_IS_EXPENSE',
      installments: 5,
    }),
    dateOrder: 'YMD',
  },
  rows.map((r) => r.line),
  rowNumbers,
);
