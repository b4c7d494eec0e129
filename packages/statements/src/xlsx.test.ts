import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { StatementError } from './errors.js';
import { pipeline, workbook } from './files.fixture.js';
import { readStatement } from './index.js';

async function failure(bytes: Uint8Array, limits = {}): Promise<StatementError> {
  try {
    await readStatement(bytes, '내역.xlsx', limits);
  } catch (e) {
    if (e instanceof StatementError) return e;
    throw e;
  }
  throw new Error('no error');
}

/** A zip whose central directory declares other sizes than its entries have. */
function lyingZip(files: Record<string, Uint8Array>, declared: number): Uint8Array {
  const zip = zipSync(files, { level: 9 });
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let eocd = zip.length - 22;
  while (view.getUint32(eocd, true) !== 0x06054b50) eocd--;
  let at = view.getUint32(eocd + 16, true);
  for (let i = 0; i < view.getUint16(eocd + 10, true); i++) {
    view.setUint32(at + 24, declared, true); // uncompressed size in the central directory
    const local = view.getUint32(at + 42, true);
    view.setUint32(local + 22, declared, true); // and in the local header
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return zip;
}

describe('readStatement: XLSX', () => {
  it('reads a card sheet: titles above the header, dates as calendar dates, formulas by their stored result', async () => {
    const bytes = await workbook((wb) => {
      const ws = wb.addWorksheet('이용내역');
      ws.addRow(['현대카드 이용내역']);
      ws.mergeCells('A1:E1');
      ws.addRow(['조회기간', '2026.05.01 ~ 2026.05.31']);
      ws.addRow([]);
      ws.addRow(['이용일', '이용시간', '가맹점명', '이용금액', '할부']);
      ws.addRow([new Date(Date.UTC(2026, 4, 14)), '12:31', '스타벅스', 5600, '일시불']);
      ws.addRow([
        new Date(Date.UTC(2026, 4, 15, 9, 5)),
        null,
        '쿠팡',
        { formula: '100000+20000', result: 120000 },
        '3개월',
      ]);
      ws.addRow([
        new Date(Date.UTC(2026, 4, 16)),
        null,
        { richText: [{ text: '이마트 ' }, { text: '성수점' }] },
        -30000,
        '',
      ]);
      ws.addRow(['합계', null, null, { formula: 'SUM(D5:D7)', result: 95600 }, null]);
    });
    const { table, proposal, lines } = await pipeline(bytes, '현대카드.xlsx');
    expect(table).toMatchObject({
      format: 'XLSX',
      encoding: null,
      delimiter: null,
      sheet: '이용내역',
      headerRow: 3,
      rowNumbers: [5, 6, 7, 8],
    });
    expect(table.rows).toEqual([
      ['2026-05-14', '12:31', '스타벅스', '5600', '일시불'],
      ['2026-05-15 09:05', '', '쿠팡', '120000', '3개월'],
      ['2026-05-16', '', '이마트 성수점', '-30000'],
      ['합계', '', '', '95600'],
    ]);
    expect(table.period).toEqual({ from: '2026-05-01', to: '2026-05-31' });
    expect(proposal.mapping.sign).toBe('POSITIVE_IS_EXPENSE');
    expect(lines.map((l) => [l.kind, l.date, l.time, l.amount, l.installmentMonths, l.cancellation])).toEqual([
      ['TRANSACTION', '2026-05-14', '12:31', 5600, null, false],
      ['TRANSACTION', '2026-05-15', '09:05', 120000, 3, false],
      ['TRANSACTION', '2026-05-16', null, 30000, null, true],
      ['SKIPPED', null, null, null, null, false],
    ]);
  });

  it('never evaluates a formula: one without a stored result is an empty cell', async () => {
    const bytes = await workbook((wb) => {
      const ws = wb.addWorksheet('s');
      ws.addRow(['일자', '내용', '금액']);
      ws.addRow(['2026-05-14', 'x', { formula: '1+1' }]);
    });
    const { lines } = await pipeline(bytes, 'a.xlsx');
    expect(lines[0]).toMatchObject({ kind: 'INVALID', reason: 'the row has no amount' });
  });

  it('reads a merged two-row header (이용금액 over 원화 | 현지)', async () => {
    const bytes = await workbook((wb) => {
      const ws = wb.addWorksheet('해외');
      ws.addRow(['이용일', '가맹점', '이용금액', '', '통화']);
      ws.addRow(['', '', '원화', '현지', '']);
      ws.mergeCells('A1:A2');
      ws.mergeCells('B1:B2');
      ws.mergeCells('C1:D1');
      ws.mergeCells('E1:E2');
      ws.addRow(['2026-05-14', 'AMAZON', 16520, 12.34, 'USD']);
    });
    const { table, lines } = await pipeline(bytes, 'a.xlsx');
    expect(table.header).toEqual(['이용일', '가맹점', '이용금액 원화', '이용금액 현지', '통화']);
    expect(lines[0]).toMatchObject({ amount: 16520, currency: 'USD', originalAmount: '12.34' });
  });

  it('reads the first visible sheet that has a header', async () => {
    const bytes = await workbook((wb) => {
      wb.addWorksheet('안내').addRow(['이 파일은 ...']);
      const hidden = wb.addWorksheet('hidden', { state: 'hidden' });
      hidden.addRow(['일자', '금액']);
      hidden.addRow(['2026-01-01', 1]);
      const ws = wb.addWorksheet('내역');
      ws.addRow(['거래일자', '적요', '출금', '입금']);
      ws.addRow(['2026-05-14', '이체', 1000, null]);
    });
    const { table } = await pipeline(bytes, 'a.xlsx');
    expect(table.sheet).toBe('내역');
  });

  it('reads every visible sheet with the same header (일시불 and 할부 sheets) and names those with another', async () => {
    const header = ['카드번호', '승인일자', '가맹점명', '승인금액(원)', '할부개월'];
    const bytes = await workbook((wb) => {
      wb.addWorksheet('안내').addRow(['삼성카드 이용내역 안내']);
      const lump = wb.addWorksheet('일시불');
      lump.addRow(header);
      lump.addRow(['5310-****-****-2219', '2026-03-01', '올리브영', 23400, 0]);
      lump.addRow(['5310-****-****-2219', '2026-03-02', '김밥천국', 8000, 0]);
      const abroad = wb.addWorksheet('해외');
      abroad.addRow(['승인일자', '가맹점명', '현지이용금액', '현지거래통화']);
      abroad.addRow(['2026-03-10', 'HOTEL', '32,000', 'JPY']);
      const parts = wb.addWorksheet('할부');
      parts.addRow(['삼성카드 할부 이용내역']);
      parts.addRow(header);
      parts.addRow(['5310-****-****-2219', '2026-03-04', '한샘', 1800000, 6]);
      const hidden = wb.addWorksheet('raw', { state: 'hidden' });
      hidden.addRow(header);
      hidden.addRow(['5310-****-****-2219', '2026-03-04', '한샘', 1800000, 6]);
    });
    const { table, lines } = await pipeline(bytes, 'a.xlsx');
    expect(table).toMatchObject({
      sheet: '일시불',
      sheets: ['일시불', '할부'],
      rowSheets: ['일시불', '일시불', '할부'],
      rowNumbers: [2, 3, 3],
      otherSheets: ['해외'],
    });
    expect(lines.map((l) => [l.date, l.description, l.amount, l.installmentMonths])).toEqual([
      ['2026-03-01', '올리브영', 23400, null],
      ['2026-03-02', '김밥천국', 8000, null],
      ['2026-03-04', '한샘', 1800000, 6],
    ]);
    // The member may pick the other sheet: it is read first, alone (no other sheet has its header).
    const abroad = await readStatement(bytes, 'a.xlsx', {}, { sheet: '해외' });
    expect(abroad).toMatchObject({ sheet: '해외', sheets: ['해외'], rowSheets: null, otherSheets: ['일시불', '할부'] });
  });

  it('EMPTY and NO_HEADER for workbooks without transactions', async () => {
    expect((await failure(await workbook((wb) => wb.addWorksheet('s')))).code).toBe('EMPTY');
    const noHeader = await workbook((wb) => wb.addWorksheet('s').addRow(['hello', 'world']));
    expect((await failure(noHeader)).code).toBe('NO_HEADER');
  });

  it('TOO_MANY_ROWS past maxRows', async () => {
    const bytes = await workbook((wb) => {
      const ws = wb.addWorksheet('s');
      ws.addRow(['일자', '금액']);
      for (let i = 0; i < 200; i++) ws.addRow(['2026-05-14', 1]);
    });
    expect((await failure(bytes, { maxRows: 100 })).code).toBe('TOO_MANY_ROWS');
  });

  it('ZIP_BOMB: declared sizes past maxUnzippedBytes, refused before inflating', async () => {
    const bytes = await workbook((wb) => {
      const ws = wb.addWorksheet('s');
      ws.addRow(['일자', '금액']);
      ws.addRow(['2026-05-14', 1]);
    });
    const e = await failure(bytes, { maxUnzippedBytes: 1000 });
    expect(e.code).toBe('ZIP_BOMB');
    expect(e.message).toMatch(/would expand to .* more than the/);
  });

  it('ZIP_BOMB: a ratio no real sheet has, refused at no cost', async () => {
    const bomb = zipSync(
      { 'xl/workbook.xml': new Uint8Array(0), 'xl/worksheets/sheet1.xml': new Uint8Array(8 * 1024 * 1024) },
      { level: 9 },
    );
    const started = performance.now();
    const e = await failure(bomb);
    expect(e.code).toBe('ZIP_BOMB');
    expect(e.message).toMatch(/would expand [\d,]+ times/);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('ZIP_BOMB: a directory that understates sizes is stopped at the declared size', async () => {
    const bomb = lyingZip(
      { 'xl/workbook.xml': new Uint8Array(10), 'xl/worksheets/sheet1.xml': new Uint8Array(4 * 1024 * 1024) },
      1000,
    );
    const e = await failure(bomb);
    expect(e.code).toBe('ZIP_BOMB');
    expect(e.message).toMatch(/holds more than its directory declares/);
  });

  it('UNSUPPORTED_FORMAT: a zip that is no workbook, and a damaged one', async () => {
    expect((await failure(zipSync({ 'content.xml': new Uint8Array(10) }))).message).toMatch(/not an Excel workbook/);
    const truncated = (await workbook((wb) => wb.addWorksheet('s').addRow(['a']))).subarray(0, 200);
    expect((await failure(truncated)).code).toBe('UNSUPPORTED_FORMAT');
  });
});
