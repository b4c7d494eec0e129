/**
 * KB국민은행 거래내역조회 downloaded as "Excel": an .xls that is an HTML table, four lines above the header, a
 * repeated header, a blank row and a trailing 합계. Writes statement.xls and expected.json.
 * Every value is invented (see SOURCE.md). Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { expense, income, mapping, row, skipped, writeExpected } from '../lib/expected';
import { type HtmlCell, type HtmlRow, shapeDir, writeHtmlXls } from '../lib/write';

const dir = shapeDir(import.meta.url);
const WIDTH = 9;
const wide = (text: string): HtmlCell => ({ text, colspan: WIDTH });
const th = (text: string): HtmlCell => ({ text, th: true });

const header = ['거래일시', '적요', '보낸분/받는분', '송금메모', '출금액', '입금액', '잔액', '거래점', '구분'];
const preamble: HtmlRow[] = [
  [wide('거래내역조회')],
  [wide('계좌번호 : 123456-01-234567   예금주 : 김*서')],
  [wide('조회기간 : 2026.03.01 ~ 2026.03.31')],
  [wide('')],
];

const rows = [
  row(
    ['2026.03.02 09:01:13', '전자금융', '월세 김영희', '3월 월세', '850,000', '0', '2,150,000', '인터넷', '출금'],
    expense('2026-03-02', '월세 김영희', 850000, { time: '09:01:13', balance: 2150000 }),
  ),
  row(
    ['2026.03.03 12:15:40', '체크카드', '스타벅스 삼성점', '', '4,700', '0', '2,145,300', '', '출금'],
    expense('2026-03-03', '스타벅스 삼성점', 4700, { time: '12:15:40', balance: 2145300 }),
  ),
  row(
    ['2026.03.05 08:00:00', '자동이체', 'KB국민카드 결제대금', '', '1,162,344', '0', '982,956', '', '출금'],
    expense('2026-03-05', 'KB국민카드 결제대금', 1162344, { time: '08:00:00', balance: 982956 }),
  ),
  row(
    ['2026.03.10 07:30:12', '급여', '(주)한빛소프트', '3월급여', '0', '3,850,000', '4,832,956', '', '입금'],
    income('2026-03-10', '(주)한빛소프트', 3850000, { time: '07:30:12', balance: 4832956 }),
  ),
  // The header again, as a multi-page export repeats it at a page break.
  row(header, skipped('repeated header row')),
  row(
    ['2026.03.12 18:22:05', '타행이체', '박민수', '모임회비', '0', '50,000', '4,882,956', '', '입금'],
    income('2026-03-12', '박민수', 50000, { time: '18:22:05', balance: 4882956 }),
  ),
  row(
    ['2026.03.15 14:40:31', '스마트출금', '한국전력공사', '', '48,210', '0', '4,834,746', '', '출금'],
    expense('2026-03-15', '한국전력공사', 48210, { time: '14:40:31', balance: 4834746 }),
  ),
  // Interest: nobody in 보낸분/받는분, so the mapped description is empty; 적요 says 결산이자.
  row(
    ['2026.03.20 00:10:02', '결산이자', '', '', '0', '1,230', '4,835,976', '', '입금'],
    income('2026-03-20', '', 1230, { description: null, time: '00:10:02', balance: 4835976 }),
  ),
  row(['', '', '', '', '', '', '', '', ''], skipped('blank row')),
  row(['합계', '', '', '', '2,065,254', '3,901,230', '', '', ''], skipped('summary row: 합계')),
];

const rowNumbers = writeHtmlXls(
  join(dir, 'statement.xls'),
  {
    title: '거래내역조회',
    charset: 'utf-8',
    tables: [{ rows: [...preamble, header.map(th), ...rows.map((r) => r.cells)] }],
  },
  'UTF-8',
  { table: 0, headerRows: preamble.length + 1 },
);

writeExpected(
  dir,
  {
    format: 'HTML',
    encoding: 'UTF-8',
    delimiter: null,
    sheet: null,
    headerRow: preamble.length,
    // 구분 (입금/출금) is read as a status column: it agrees with the amount columns here; a 취소 there would cancel.
    mapping: mapping({ date: 0, description: 2, withdrawal: 4, deposit: 5, balance: 6, status: 8 }),
    dateOrder: 'YMD',
  },
  rows.map((r) => r.line),
  rowNumbers,
);
