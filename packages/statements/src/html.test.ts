import { describe, expect, it } from 'vitest';
import { encode, pipeline } from './files.fixture.js';

const page = (body: string, charset = 'euc-kr') =>
  `<html xmlns:x="urn:schemas-microsoft-com:office:excel">\n<head><meta http-equiv="Content-Type" content="application/vnd.ms-excel; charset=${charset}"><style>td { mso-number-format:"\\@"; }</style></head>\n<body>${body}</body></html>`;

describe('readStatement: HTML tables ("Excel" downloads)', () => {
  it('reads a CP949 bank download named .xls: title rows in the table, <th> header, entities, <br>', async () => {
    const html = page(`
<table border="1">
  <tr><td colspan="6">신한은행 거래내역조회</td></tr>
  <tr><td colspan="6">조회기간 : 2026.05.01 ~ 2026.05.31</td></tr>
  <tr><th>거래일자</th><th>거래시간</th><th>적요</th><th>출금(원)</th><th>입금(원)</th><th>내용</th></tr>
  <tr><td>2026-05-14</td><td>12:31:05</td><td>체크</td><td>5,600</td><td>0</td><td>스타벅스&amp;<br>강남</td></tr>
  <tr><td>2026-05-15</td><td>09:00:00</td><td>급여</td><td>0</td><td>3,000,000</td><td>(주)회사</td></tr>
</table>`);
    const { table, proposal, transactions } = await pipeline(encode(html, 'cp949'), '거래내역.xls');
    expect(table).toMatchObject({ format: 'HTML', encoding: 'CP949', headerRow: 2, rowNumbers: [4, 5] });
    expect(proposal.mapping).toMatchObject({ date: 0, time: 1, withdrawal: 3, deposit: 4, description: 5 });
    expect(transactions.map((t) => [t.date, t.time, t.type, t.amount, t.description])).toEqual([
      ['2026-05-14', '12:31:05', 'EXPENSE', 5600, '스타벅스& 강남'],
      ['2026-05-15', '09:00:00', 'INCOME', 3000000, '(주)회사'],
    ]);
  });

  it('takes the most tabular table, not the layout or the summary table, and expands rowspan and colspan', async () => {
    const html = page(
      `<table><tr><td>로고</td><td><table><tr><td>합계</td><td>3건</td></tr></table></td></tr></table>
<table>
  <thead><tr><th rowspan="2">이용일</th><th rowspan="2">가맹점</th><th colspan="2">이용금액</th></tr>
  <tr><th>원화</th><th>현지</th></tr></thead>
  <tbody>
  <tr><td>2026.05.14</td><td>AMAZON</td><td>16,520</td><td>USD 12.34</td></tr>
  <tr><td rowspan="2">2026.05.15</td><td>스타벅스</td><td>5,600</td><td></td></tr>
  <tr><td>GS25</td><td>3,000</td><td></td></tr>
  </tbody>
</table>`,
      'utf-8',
    );
    const { table, lines } = await pipeline(encode(html, 'utf8'), 'a.html');
    expect(table.header).toEqual(['이용일', '가맹점', '이용금액 원화', '이용금액 현지']);
    // Rows are numbered by their <tr> in the page, across tables (the layout table and the one inside it first).
    expect(table).toMatchObject({ headerRow: 3, rowNumbers: [5, 6, 7] });
    expect(lines.map((l) => [l.date, l.description, l.amount, l.currency, l.originalAmount])).toEqual([
      ['2026-05-14', 'AMAZON', 16520, 'USD', '12.34'],
      ['2026-05-15', '스타벅스', 5600, null, null],
      ['2026-05-15', 'GS25', 3000, null, null],
    ]);
  });

  it('tolerates cells and rows that are never closed', async () => {
    const html =
      '<table><tr><td>이용일자<td>가맹점명<td>이용금액\n<tr><td>2026-05-14<td>스타벅스<td>5,600\n<tr><td>2026-05-15<td>쿠팡<td>1,200</table>';
    const { transactions } = await pipeline(encode(html, 'utf8'), 'a.xls');
    expect(transactions.map((t) => [t.description, t.amount])).toEqual([
      ['스타벅스', 5600],
      ['쿠팡', 1200],
    ]);
  });
});
