/**
 * 우리은행 거래내역조회 downloaded as "Excel": an .xls that is an HTML table written in CP949 (EUC-KR), oldest first.
 * Writes statement.xls and expected.json. Every value is invented (see SOURCE.md).
 * Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { expense, income, mapping, row, writeExpected } from '../lib/expected';
import { type HtmlCell, type HtmlRow, shapeDir, writeHtmlXls } from '../lib/write';

const dir = shapeDir(import.meta.url);
const WIDTH = 9;
const wide = (text: string): HtmlCell => ({ text, colspan: WIDTH });
const th = (text: string): HtmlCell => ({ text, th: true });

const header = ['No.', '거래일시', '적요', '기재내용', '찾으신금액', '맡기신금액', '거래후 잔액', '취급기관', '메모'];
const preamble: HtmlRow[] = [
  [wide('거래내역조회')],
  [wide('조회계좌 : 1002-345-678901')],
  [wide('조회기간 : 2026.03.01 ~ 2026.03.31')],
];

const rows = [
  // Two identical card payments minutes apart: same merchant, same amount, no transaction id. Two lines.
  row(
    ['1', '2026.03.02 08:39', '체크우리', 'GS25 역삼점', '3,200', '0', '1,496,800', '우리은행', ''],
    expense('2026-03-02', 'GS25 역삼점', 3200, { time: '08:39', balance: 1496800 }),
  ),
  row(
    ['2', '2026.03.02 08:41', '체크우리', 'GS25 역삼점', '3,200', '0', '1,493,600', '우리은행', ''],
    expense('2026-03-02', 'GS25 역삼점', 3200, { time: '08:41', balance: 1493600 }),
  ),
  row(
    ['3', '2026.03.04 10:02', '인터넷', '서울도시가스', '38,900', '0', '1,454,700', '우리은행', ''],
    expense('2026-03-04', '서울도시가스', 38900, { time: '10:02', balance: 1454700 }),
  ),
  row(
    ['4', '2026.03.10 09:00', '급여', '주식회사한빛', '0', '2,400,000', '3,854,700', '기업은행', '3월'],
    income('2026-03-10', '주식회사한빛', 2400000, { time: '09:00', balance: 3854700 }),
  ),
  row(
    ['5', '2026.03.15 13:27', 'CD출금', '우리은행 삼성역', '100,000', '0', '3,754,700', '우리은행', ''],
    expense('2026-03-15', '우리은행 삼성역', 100000, { time: '13:27', balance: 3754700 }),
  ),
  row(
    ['6', '2026.03.25 11:11', '모바일', '김민지', '0', '30,000', '3,784,700', '카카오뱅크', '회비'],
    income('2026-03-25', '김민지', 30000, { time: '11:11', balance: 3784700 }),
  ),
];

const rowNumbers = writeHtmlXls(
  join(dir, 'statement.xls'),
  {
    title: '거래내역조회',
    charset: 'euc-kr',
    tables: [{ rows: [...preamble, header.map(th), ...rows.map((r) => r.cells)] }],
  },
  'CP949',
  { table: 0, headerRows: preamble.length + 1 },
);

writeExpected(
  dir,
  {
    format: 'HTML',
    encoding: 'CP949',
    delimiter: null,
    sheet: null,
    headerRow: preamble.length,
    // 적요 beside 기재내용 is read as a status column (the parser's rule for a bank's 적요): 출금취소 there would cancel.
    mapping: mapping({ date: 1, description: 3, withdrawal: 4, deposit: 5, balance: 6, status: 2 }),
    dateOrder: 'YMD',
  },
  rows.map((r) => r.line),
  rowNumbers,
);
