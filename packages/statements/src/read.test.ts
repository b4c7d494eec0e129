import { describe, expect, it } from 'vitest';
import { StatementError } from './errors.js';
import { encode, lines, pipeline } from './files.fixture.js';
import { readStatement } from './index.js';

async function failure(bytes: Uint8Array, name: string, limits = {}): Promise<StatementError> {
  try {
    await readStatement(bytes, name, limits);
  } catch (e) {
    if (e instanceof StatementError) return e;
    throw e;
  }
  throw new Error('no error');
}

const card = lines(
  '삼성카드 이용내역',
  '이용일,가맹점,이용금액,할부개월,승인번호',
  '2026.05.14,스타벅스,"5,600원",,1001',
  '2026.05.15,쿠팡,"￦120,000",3,1002',
  '2026.05.16,GS25,"\\3,000",,1003',
);

describe('readStatement: CSV', () => {
  it.each(['utf8', 'utf8-bom', 'cp949', 'utf16le'] as const)('reads a %s card CSV', async (encoding) => {
    const { table, transactions } = await pipeline(encode(card, encoding), '삼성.csv');
    expect(table).toMatchObject({ format: 'CSV', delimiter: ',', headerRow: 1, sheet: null, rowNumbers: [3, 4, 5] });
    expect(transactions.map((t) => [t.date, t.description, t.amount, t.installmentMonths])).toEqual([
      ['2026-05-14', '스타벅스', 5600, null],
      ['2026-05-15', '쿠팡', 120000, 3],
      ['2026-05-16', 'GS25', 3000, null],
    ]);
  });

  it('reads a TSV named .xls (a text "Excel" download)', async () => {
    const tsv = lines('이용일\t가맹점\t이용금액', '2026.05.14\t스타벅스, 강남\t5,600', '2026.05.15\t쿠팡\t120,000');
    const { table, transactions } = await pipeline(encode(tsv, 'cp949'), '내역.xls');
    expect(table.delimiter).toBe('\t');
    expect(transactions.map((t) => [t.description, t.amount])).toEqual([
      ['스타벅스, 강남', 5600],
      ['쿠팡', 120000],
    ]);
  });

  it("takes Excel's sep= line as the delimiter and counts it in line numbers", async () => {
    const { table } = await pipeline(
      encode(lines('sep=;', 'Date;Description;Amount', '2026-05-14;Coffee;-4.50'), 'utf8'),
      'a.csv',
      {
        defaultCurrency: 'USD',
      },
    );
    expect(table).toMatchObject({ delimiter: ';', headerRow: 1, rowNumbers: [3] });
  });
});

describe('readStatement: files it refuses', () => {
  it('TOO_LARGE: more than maxBytes, before reading anything', async () => {
    const e = await failure(new Uint8Array(2048), 'big.csv', { maxBytes: 1024 });
    expect(e.code).toBe('TOO_LARGE');
    expect(e.message).toMatch(/"big.csv" is 2 KB, more than the 1 KB/);
  });

  it('TOO_MANY_ROWS: more than maxRows data rows', async () => {
    const text = lines('이용일자,이용금액', ...Array.from({ length: 101 }, () => '2026-05-14,1000'));
    expect((await failure(encode(text, 'utf8'), 'a.csv', { maxRows: 100 })).code).toBe('TOO_MANY_ROWS');
    await expect(readStatement(encode(text, 'utf8'), 'a.csv', { maxRows: 101 })).resolves.toBeTruthy();
  });

  it('TOO_MANY_ROWS without reading a huge file whole', async () => {
    const text = `이용일자,이용금액\n${'2026-05-14,1000\n'.repeat(400_000)}`;
    const started = performance.now();
    expect((await failure(encode(text, 'utf8'), 'a.csv', { maxRows: 1000 })).code).toBe('TOO_MANY_ROWS');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('LEGACY_XLS: an OLE2 (Excel 97–2003) file, with what to do', async () => {
    const ole = Uint8Array.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);
    const e = await failure(ole, '거래내역.xls');
    expect(e.code).toBe('LEGACY_XLS');
    expect(e.message).toMatch(/save it as \.xlsx or as CSV/);
  });

  it('LEGACY_XLS: an Excel 2003 XML spreadsheet', async () => {
    const xml =
      '<?xml version="1.0"?>\n<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet/></Workbook>';
    expect((await failure(encode(xml, 'utf8'), 'a.xls')).code).toBe('LEGACY_XLS');
  });

  it('UNSUPPORTED_FORMAT: a PDF', async () => {
    expect((await failure(encode('%PDF-1.7\n...', 'utf8'), 'statement.pdf')).code).toBe('UNSUPPORTED_FORMAT');
  });

  it('BINARY_FILE: binary bytes under a text name', async () => {
    const e = await failure(Uint8Array.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0, 0, 1, 2, 3]), 'statement.csv');
    expect(e.code).toBe('BINARY_FILE');
  });

  it('BROKEN_ENCODING: text in no supported encoding', async () => {
    const bytes = Uint8Array.from([...new TextEncoder().encode('date,amount\n'), 0xff, 0xfe, 0xfd, 0x2c, 0x31]);
    expect((await failure(bytes, 'a.csv')).code).toBe('BROKEN_ENCODING');
  });

  it.each([
    ['0 bytes', new Uint8Array(0)],
    ['blank lines', encode('\r\n\r\n  \r\n', 'utf8')],
    ['a header only', encode('이용일자,가맹점명,이용금액\r\n', 'utf8')],
    ['a header and blank rows', encode('이용일자,가맹점명,이용금액\r\n,,\r\n', 'cp949')],
  ])('EMPTY: %s', async (_, bytes) => {
    expect((await failure(bytes, 'a.csv')).code).toBe('EMPTY');
  });

  it('NO_HEADER: rows without a header naming a date and an amount', async () => {
    expect((await failure(encode('2026-05-14,스타벅스,5600\n2026-05-15,쿠팡,1200\n', 'utf8'), 'a.csv')).code).toBe(
      'NO_HEADER',
    );
    expect((await failure(encode('<!doctype html><html><body>로그인</body></html>', 'utf8'), 'a.xls')).code).toBe(
      'NO_HEADER',
    );
  });

  it('every refusal is a StatementError whose message names the file and says what to do', async () => {
    const e = await failure(new Uint8Array(0), '내역.csv');
    expect(e).toBeInstanceOf(StatementError);
    expect(e.name).toBe('StatementError');
    expect(e.message).toMatch(/^"내역.csv" is empty.*Download the statement again\.$/);
  });
});
