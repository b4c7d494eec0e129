/**
 * Variation tests, one group per corpus shape (issue 38; each shape's SOURCE.md lists its plan): the shape's rows
 * with columns shuffled, header lines added or removed, thousands separators toggled, summary rows added or removed,
 * another encoding, delimiter, row order or layout — the same transactions must come out, row by row. CSV/TSV shapes
 * go through corpus/variations.ts; XLSX, HTML and OFX variants are built here (exceljs, markup and text edits).
 */
import { describe, expect, it } from 'vitest';
import type { Line } from '../corpus/lib/expected';
import { encode } from '../corpus/lib/write';
import {
  type DelimitedShape,
  headerLines,
  serialize,
  shuffleColumns,
  standardVariations,
  thousands,
  trailingSummaries,
  type Variation,
} from '../corpus/variations';
import type { DateOrder } from './types.js';
import {
  appendRow,
  type Cell,
  delimitedShape,
  dropColumn,
  expectedOf,
  expectVariant,
  htmlPage,
  htmlShape,
  mapColumns,
  reversed,
  rowNumbersOf,
  type Shape,
  type SheetSpec,
  sheetRows,
  skippedLine,
  statementOf,
  xlsxBytes,
  xlsxShape,
} from './variations.fixture.js';

/** The standard plan, less `원` after amounts for a shape whose amounts are in another currency. */
function planFor(shape: DelimitedShape, foreign: boolean): Variation[] {
  return standardVariations(shape).filter((v) => !(foreign && v.name === 'thousands separators won'));
}

function named(v: DelimitedShape, name: string): Variation {
  return { ...v, name };
}

/** A text edit that must change the text (a variant that silently equals the original tests nothing). */
function edited(text: string, edit: (text: string) => string): string {
  const out = edit(text);
  expect(out).not.toBe(text);
  return out;
}

/** Every cell quoted, as some exports write. */
function quotedAll(shape: DelimitedShape, delimiter: string): string {
  const line = (cells: string[]) => cells.map((c) => `"${c.replaceAll('"', '""')}"`).join(delimiter);
  return `${[...shape.preamble.map(line), line(shape.header), ...shape.rows.map(line)].join('\r\n')}\r\n`;
}

describe('variations: shinhancard-usage-csv-cp949', () => {
  const id = 'shinhancard-usage-csv-cp949';
  const shape = delimitedShape(id);
  const { dateOrder } = expectedOf(id);
  const bare = headerLines(shape, Number.NEGATIVE_INFINITY);
  const variants = [
    ...planFor(shape, false),
    named(shuffleColumns(shape, [3, 0, 1, 2, 6, 4, 5, 7]), '가맹점명 first, 승인번호 before 이용금액'),
    named(headerLines(bare, 1), '1 title line'),
    named(headerLines(bare, 5), '5 title lines'),
  ];
  it.each(variants.map((v) => [v.name, v] as const))('%s', async (_, v) => {
    const { text, rowNumbers } = serialize(v, ',');
    await expectVariant(encode(text, 'CP949'), 'statement.csv', {
      lines: v.lines,
      dateOrder,
      mapping: v.mapping,
      headerRow: v.headerRow,
      rowNumbers,
    });
  });
  it.each(['UTF-8', 'UTF-8-BOM'] as const)('the same text in %s', async (encoding) => {
    const { text, rowNumbers } = serialize(shape, ',');
    await expectVariant(encode(text, encoding), 'statement.csv', { lines: shape.lines, dateOrder, rowNumbers });
  });
  it.each(['\t', ';'] as const)('delimited by %j', async (delimiter) => {
    const { text, rowNumbers } = serialize(shape, delimiter);
    await expectVariant(encode(text, 'CP949'), 'statement.csv', { lines: shape.lines, dateOrder, rowNumbers });
  });
});

describe('variations: wise-statement-csv', () => {
  const id = 'wise-statement-csv';
  const shape = delimitedShape(id);
  const { dateOrder } = expectedOf(id);
  const ask = { dateOrder: null, candidates: ['DMY' as const, 'MDY' as const] };
  it.each(planFor(shape, true).map((v) => [v.name, v] as const))('%s: the proposal still asks', async (_, v) => {
    const { text, rowNumbers } = serialize(v, ',');
    await expectVariant(encode(text, 'UTF-8'), 'statement.csv', {
      lines: v.lines,
      dateOrder,
      proposal: ask,
      mapping: v.mapping,
      rowNumbers,
    });
  });

  const last = shape.rows[shape.rows.length - 1]!;
  const lastLine = shape.lines[shape.lines.length - 1]!;
  const thirteenth = appendRow(
    shape,
    ['CARD-1001122600', '13-03-2026', '-7.25', 'USD', 'Card transaction of 7.25 USD issued by Joe', '', '1838.20']
      .concat(last.slice(7, 13))
      .concat(['Joe', '0.00']),
    {
      ...lastLine,
      date: '2026-03-13',
      originalAmount: '7.25',
      description: 'Card transaction of 7.25 USD issued by Joe',
      transactionId: 'CARD-1001122600',
      balance: 1838.2,
    },
  );
  it('a day over 12 added: the proposal is DMY without asking', async () => {
    const { text, rowNumbers } = serialize(thirteenth, ',');
    await expectVariant(encode(text, 'UTF-8'), 'statement.csv', {
      lines: thirteenth.lines,
      dateOrder: 'DMY',
      rowNumbers,
    });
  });
  it('MM-DD-YYYY with a day over 12: the proposal is MDY', async () => {
    const mdy = mapColumns(thirteenth, [shape.mapping.date], (c) => c.replace(/^(\d\d)-(\d\d)/, '$2-$1'));
    const { text, rowNumbers } = serialize(mdy, ',');
    await expectVariant(encode(text, 'UTF-8'), 'statement.csv', { lines: mdy.lines, dateOrder: 'MDY', rowNumbers });
  });
  it('quotes only where needed, CRLF (the corpus file quotes every cell, LF)', async () => {
    const { text } = serialize(shape, ',');
    await expectVariant(encode(text, 'UTF-8'), 'statement.csv', { lines: shape.lines, dateOrder, proposal: ask });
  });
  it('Currency before Amount', async () => {
    const v = shuffleColumns(shape, [0, 1, 3, 2, ...Array.from({ length: 11 }, (_, i) => i + 4)]);
    const { text } = serialize(v, ',');
    await expectVariant(encode(text, 'UTF-8'), 'statement.csv', {
      lines: v.lines,
      dateOrder,
      proposal: ask,
      mapping: v.mapping,
    });
  });
  it('a KRW row mixed in: a local line, its amount in won', async () => {
    const krw: Line = {
      ...lastLine,
      date: '2026-03-12',
      type: 'EXPENSE',
      amount: 15000,
      currency: null,
      originalAmount: null,
      description: 'Card transaction of 15000 KRW issued by GS25',
      transactionId: 'CARD-1001122700',
      balance: 85000,
    };
    const v = appendRow(
      shape,
      [
        'CARD-1001122700',
        '12-03-2026',
        '-15000',
        'KRW',
        'Card transaction of 15000 KRW issued by GS25',
        '',
        '85000',
      ].concat(last.slice(7, 13), ['GS25', '0']),
      krw,
    );
    const { text } = serialize(v, ',');
    await expectVariant(encode(text, 'UTF-8'), 'statement.csv', { lines: v.lines, dateOrder, proposal: ask });
  });
});

describe('variations: erste-hu-csv-utf16le', () => {
  const id = 'erste-hu-csv-utf16le';
  const shape = delimitedShape(id);
  const { dateOrder } = expectedOf(id);
  it.each(planFor(shape, true).map((v) => [v.name, v] as const))('%s', async (_, v) => {
    const { text, rowNumbers } = serialize(v, ',');
    await expectVariant(encode(text, 'UTF-16LE'), 'statement.csv', {
      lines: v.lines,
      dateOrder,
      mapping: v.mapping,
      rowNumbers,
    });
  });
  it.each(['UTF-16BE', 'UTF-8'] as const)('the same text in %s', async (encoding) => {
    const { text } = serialize(shape, ',');
    await expectVariant(encode(text, encoding), 'statement.csv', { lines: shape.lines, dateOrder });
  });
  it('semicolon-delimited', async () => {
    const { text } = serialize(shape, ';');
    await expectVariant(encode(text, 'UTF-16LE'), 'statement.csv', { lines: shape.lines, dateOrder });
  });
  it.each([
    ['a decimal point', '.00'],
    ['a decimal comma, quoted', ',00'],
  ])('amounts with decimals, %s: the original amount as written', async (_, fraction) => {
    const v = mapColumns(shape, [shape.mapping.amount], (c) => `${c}${fraction}`);
    const lines = v.lines.map((l) => ({ ...l, originalAmount: `${l.originalAmount}.00` }));
    const { text } = serialize(v, ',');
    await expectVariant(encode(text, 'UTF-16LE'), 'statement.csv', { lines, dateOrder });
  });
  it('columns shuffled', async () => {
    const v = shuffleColumns(shape, [8, 3, 7, 2, 1, 0, 4, 5, 6]);
    const { text } = serialize(v, ',');
    await expectVariant(encode(text, 'UTF-16LE'), 'statement.csv', { lines: v.lines, dateOrder, mapping: v.mapping });
  });
});

describe('variations: swedbank-tsv', () => {
  const id = 'swedbank-tsv';
  const shape = delimitedShape(id);
  const { dateOrder } = expectedOf(id);
  it.each(planFor(shape, true).map((v) => [v.name, v] as const))('%s', async (_, v) => {
    const { text, rowNumbers } = serialize(v, '\t');
    await expectVariant(encode(text, 'UTF-8-BOM'), 'statement.csv', {
      lines: v.lines,
      dateOrder,
      mapping: v.mapping,
      rowNumbers,
    });
  });
  it('without the BOM', async () => {
    const { text } = serialize(shape, '\t');
    await expectVariant(encode(text, 'UTF-8'), 'statement.csv', { lines: shape.lines, dateOrder });
  });
  it('comma-delimited, every cell quoted', async () => {
    await expectVariant(encode(quotedAll(shape, ','), 'UTF-8-BOM'), 'statement.csv', { lines: shape.lines, dateOrder });
  });
  it('a decimal comma, as Swedish Excel writes (-342,50)', async () => {
    const v = mapColumns(shape, [shape.mapping.amount, shape.mapping.balance], (c) => c.replace('.', ','));
    const { text } = serialize(v, '\t');
    await expectVariant(encode(text, 'UTF-8-BOM'), 'statement.csv', { lines: v.lines, dateOrder });
  });
  it('oldest first', async () => {
    const v = reversed(shape);
    const { text, rowNumbers } = serialize(v, '\t');
    await expectVariant(encode(text, 'UTF-8-BOM'), 'statement.csv', { lines: v.lines, dateOrder, rowNumbers });
  });
});

describe('variations: kbstar-transactions-xls-html', () => {
  const id = 'kbstar-transactions-xls-html';
  const shape = htmlShape(id);
  const { dateOrder } = expectedOf(id);
  const html = (v: DelimitedShape) => encode(htmlPage(v), 'UTF-8');
  const zeroless = mapColumns(shape, [shape.mapping.withdrawal, shape.mapping.deposit], (c) => (c === '0' ? '' : c));
  const repeated = (() => {
    const rows = [...shape.rows];
    const lines = [...shape.lines];
    for (const at of [1, 4]) {
      rows.splice(at, 0, [...shape.header]);
      lines.splice(at, 0, skippedLine());
    }
    return { ...shape, rows, lines };
  })();
  const variants = [
    ...planFor(shape, false),
    named(shuffleColumns(shape, [0, 2, 1, 3, 5, 4, 6, 7, 8]), '입금액 before 출금액, 적요 after 보낸분/받는분'),
    named(headerLines(shape, 2), 'a preamble of 6 lines'),
    named(thousands(zeroless, 'won'), 'empty cells for the unused amount, 원 after amounts'),
    named(repeated, 'several repeated headers'),
  ];
  it.each(variants.map((v) => [v.name, v] as const))('%s', async (_, v) => {
    await expectVariant(html(v), 'statement.xls', {
      lines: v.lines,
      dateOrder,
      mapping: v.mapping,
      headerRow: v.headerRow,
      rowNumbers: serialize(v).rowNumbers,
    });
  });
  it.each(['UTF-8-BOM', 'CP949'] as const)('the same rows as a CSV in %s (the upload guide form)', async (encoding) => {
    const { text, rowNumbers } = serialize(shape, ',');
    await expectVariant(encode(text, encoding), 'statement.csv', {
      lines: shape.lines,
      dateOrder,
      mapping: shape.mapping,
      rowNumbers,
    });
  });
});

describe('variations: wooribank-transactions-xls-html-cp949', () => {
  const id = 'wooribank-transactions-xls-html-cp949';
  const shape = htmlShape(id);
  const { dateOrder } = expectedOf(id);
  const variants = [
    ...planFor(shape, false),
    named(shuffleColumns(shape, [5, 0, 1, 2, 3, 4, 6, 7, 8]), '맡기신금액 first'),
    named(dropColumn(shape, 0), 'the No. column removed'),
    named(headerLines(shape, 4), 'a preamble of 7 lines'),
    named(reversed(shape), 'newest first'),
    named(trailingSummaries(shape, ['합계']), 'a trailing 합계'),
  ];
  it.each(variants.map((v) => [v.name, v] as const))('%s', async (_, v) => {
    await expectVariant(encode(htmlPage(v, 'euc-kr'), 'CP949'), 'statement.xls', {
      lines: v.lines,
      dateOrder,
      mapping: v.mapping,
      headerRow: v.headerRow,
      rowNumbers: serialize(v).rowNumbers,
    });
  });
  it('the page in UTF-8 with charset=utf-8 and &nbsp; in empty cells', async () => {
    await expectVariant(encode(htmlPage(shape, 'utf-8', '&nbsp;'), 'UTF-8'), 'statement.xls', {
      lines: shape.lines,
      dateOrder,
      mapping: shape.mapping,
    });
  });
});

describe('variations: lottecard-statement-xls-html', () => {
  const id = 'lottecard-statement-xls-html';
  const e = expectedOf(id);
  const page = statementOf(id).bytes.toString('utf8');
  const [summary, detail] = [...page.matchAll(/<table[^>]*>[\s\S]*?<\/table>/g)].map((m) => m[0]);
  const base = e.lines.map(({ index: _i, rowNumber: _r, ...l }) => l);
  const numbers = e.lines.map((l) => l.rowNumber);
  const check = (text: string, want: { lines?: Line[]; headerRow?: number; rowNumbers?: number[]; euc?: boolean }) =>
    expectVariant(encode(text, want.euc ? 'CP949' : 'UTF-8'), 'statement.xls', {
      lines: want.lines ?? base,
      dateOrder: e.dateOrder,
      mapping: e.mapping,
      headerRow: want.headerRow,
      rowNumbers: want.rowNumbers,
    });
  it('the corpus page', () => check(page, { headerRow: e.headerRow, rowNumbers: numbers }));
  it('the summary table removed', () =>
    check(
      edited(page, (p) => p.replace(summary!, '')),
      { headerRow: 1, rowNumbers: numbers.map((n) => n - 5) },
    ));
  it('the summary table after the detail', () =>
    check(
      edited(page, (p) => p.replace(summary!, '').replace(detail!, `${detail}\r\n${summary}`)),
      {
        headerRow: 1,
        rowNumbers: numbers.map((n) => n - 5),
      },
    ));
  it('the header as two plain rows without spans (the group over a blank, names repeated below)', () => {
    const names = ['이용일', '이용카드', '이용가맹점', '이용총액', '회차', '할부'];
    const after = ['적립예정', '이용혜택', '혜택금액', '결제 후 잔액'];
    const th = (cells: string[]) => `<tr>${cells.map((c) => `<th>${c}</th>`).join('')}</tr>`;
    const plain = edited(detail!, (d) =>
      d.replace(
        /<tr><th rowspan[\s\S]*?<\/tr>\r\n<tr><th>원금<\/th><th>수수료<\/th><\/tr>/,
        `${th([...names, '이번 달 입금하실 금액', '', ...after])}\r\n${th([...names, '원금', '수수료', ...after])}`,
      ),
    );
    return check(page.replace(detail!, plain), { headerRow: e.headerRow, rowNumbers: numbers });
  });
  it('원 removed from 이용총액', () =>
    check(
      edited(page, (p) => p.replace(/(\d)원</g, '$1<')),
      { rowNumbers: numbers },
    ));
  it('thousands separators removed', () =>
    check(
      edited(page, (p) => p.replace(/(\d),(?=\d{3}\b)/g, '$1').replace(/(\d),(?=\d{3}\b)/g, '$1')),
      { rowNumbers: numbers },
    ));
  it('the page in EUC-KR (charset=euc-kr)', () =>
    check(
      edited(page, (p) => p.replace('charset=utf-8', 'charset=euc-kr')),
      { euc: true, rowNumbers: numbers },
    ));
  it('no trailing 합계', () =>
    check(
      edited(page, (p) => p.replace(/<tr><td colspan="3">합계[\s\S]*?<\/tr>\r\n/, '')),
      {
        lines: base.slice(0, -1),
        rowNumbers: numbers.slice(0, -1),
      },
    ));
});

// XLSX shapes: the sheet's cells (numbers, dates, text) read back with exceljs, variants written with exceljs.
type XShape = Shape<Cell>;
const text = (shape: XShape) => shape as unknown as DelimitedShape;
const cells = (shape: DelimitedShape) => shape as unknown as XShape;
const grouped = (n: Cell) => (typeof n === 'number' ? n.toLocaleString('en-US') : n);
const isoDay = (d: Cell) => (d instanceof Date ? d.toISOString().slice(0, 10) : d);

/** A variant of one sheet (plus sheets around it) read as the shape's lines, row numbers and header row say. */
async function sheetCase(shape: XShape, sheet: string, dateOrder: DateOrder, more: { before?: SheetSpec[] } = {}) {
  const bytes = await xlsxBytes([...(more.before ?? []), { name: sheet, rows: sheetRows(shape) }]);
  await expectVariant(bytes, 'statement.xlsx', {
    lines: shape.lines,
    dateOrder,
    mapping: shape.mapping,
    headerRow: shape.preamble.length,
    rowNumbers: rowNumbersOf(shape),
  });
}

function xlsxGroup(id: string, shape: XShape, variants: (shape: XShape) => [string, XShape][]) {
  describe(`variations: ${id}`, () => {
    const e = expectedOf(id);
    const all: [string, XShape][] = [['the corpus sheet, rewritten', shape], ...variants(shape)];
    it.each(all)('%s', async (_, v) => {
      await sheetCase(v, e.sheet!, e.dateOrder);
    });
  });
}

xlsxGroup('samsungcard-domestic-xlsx', await xlsxShape('samsungcard-domestic-xlsx'), (shape) => {
  const m = shape.mapping;
  return [
    [
      '카드번호 last, 승인시각 before 승인일자',
      cells(shuffleColumns(text(shape), [1, 3, 2, 4, 5, 6, 7, 8, 9, 10, 11, 0])),
    ],
    [
      'a title block and a blank row above the header',
      { ...shape, preamble: [['삼성카드 이용내역'], ['조회기간 : 2026.03.01 ~ 2026.03.31'], []] },
    ],
    ['amounts as text with separators', mapColumns(shape, [m.amount], grouped)],
    ['dates as text 2026.03.01', mapColumns(shape, [m.date], (d) => (isoDay(d) as string).replaceAll('-', '.'))],
    ['dates as text 20260301', mapColumns(shape, [m.date], (d) => (isoDay(d) as string).replaceAll('-', ''))],
    [
      'a trailing 합계 (label in 가맹점명)',
      appendRow(shape, [null, null, null, null, '합계', 1869450, null, null, null, null, 120, null], skippedLine()),
    ],
  ];
});

describe('variations: samsungcard-domestic-xlsx, sheets', () => {
  const id = 'samsungcard-domestic-xlsx';
  const e = expectedOf(id);
  it('a notice sheet (안내) placed first: the statement sheet is still read', async () => {
    const notice = { name: '안내', rows: [['삼성카드 이용내역 안내'], ['본 자료는 참고용입니다.']] };
    await sheetCase(await xlsxShape(id), e.sheet!, e.dateOrder, { before: [notice] });
  });
  it('일시불 and 할부 on two sheets with one header: every row read, in sheet order', async () => {
    const shape = await xlsxShape(id);
    const kind = shape.header.indexOf('일시불할부구분');
    const parts = shape.rows.map((r, i) => ({ r, line: shape.lines[i]!, instalment: r[kind] === '할부' }));
    const lump = parts.filter((p) => !p.instalment);
    const split = parts.filter((p) => p.instalment);
    const bytes = await xlsxBytes([
      { name: '일시불', rows: [shape.header, ...lump.map((p) => p.r)] },
      { name: '할부', rows: [shape.header, ...split.map((p) => p.r)] },
    ]);
    const table = await expectVariant(bytes, 'statement.xlsx', {
      lines: [...lump, ...split].map((p) => p.line),
      dateOrder: e.dateOrder,
      mapping: shape.mapping,
      rowNumbers: [...lump.map((_, i) => i + 2), ...split.map((_, i) => i + 2)],
    });
    expect(split.length).toBeGreaterThan(0);
    expect(table.filter((l) => l.installmentMonths !== null)).toHaveLength(split.length);
  });
});

xlsxGroup('samsungcard-overseas-xlsx', await xlsxShape('samsungcard-overseas-xlsx'), (shape) => {
  const m = shape.mapping;
  const numeric = mapColumns(shape, [m.foreignAmount], (c) => Number(String(c).replaceAll(',', '')));
  numeric.lines = numeric.lines.map((l) => ({
    ...l,
    originalAmount: l.originalAmount === null ? null : String(Number(l.originalAmount)),
  }));
  return [
    ['현지거래통화 before 현지이용금액', cells(shuffleColumns(text(shape), [0, 1, 2, 3, 4, 5, 6, 7, 9, 8, 10]))],
    ['현지이용금액 as numbers', numeric],
    ['JPY without separators', mapColumns(shape, [m.foreignAmount], (c) => String(c).replaceAll(',', ''))],
    [
      'a title block above the header',
      { ...shape, preamble: [['삼성카드 해외이용내역'], ['조회기간 : 2026.03.01 ~ 2026.03.31'], []] },
    ],
    ['a trailing 합계', cells(trailingSummaries(text(shape), ['합계']))],
    ['lower-case currency codes', mapColumns(shape, [m.currency], (c) => String(c).toLowerCase())],
  ];
});

xlsxGroup('hyundaicard-usage-xlsx', await xlsxShape('hyundaicard-usage-xlsx'), (shape) => {
  const amounts = [3, 4, 5];
  return [
    ['이용금액 before 승인금액', cells(shuffleColumns(text(shape), [0, 1, 2, 4, 3, 5, 6, 7, 8, 9, 10]))],
    ['title lines removed', cells(headerLines(text(shape), Number.NEGATIVE_INFINITY))],
    ['title lines doubled', cells(headerLines(text(shape), 3))],
    ['the blank row removed', { ...shape, preamble: shape.preamble.slice(0, 3) }],
    ['amounts as text 6,100', mapColumns(shape, amounts, grouped)],
    ['amounts as text 6,100원', mapColumns(shape, amounts, (n) => `${grouped(n)}원`)],
    ['dates 2026-03-02', mapColumns(shape, [0], (d) => String(d).replaceAll('.', '-'))],
    ['dates 20260302', mapColumns(shape, [0], (d) => String(d).replaceAll('.', ''))],
    ['a trailing 합계', cells(trailingSummaries(text(shape), ['합계']))],
  ];
});

xlsxGroup('kbcard-statement-xlsx', await xlsxShape('kbcard-statement-xlsx'), (shape) => {
  const upper = shape.preamble[0]!;
  const merged = shape.header.map((part, c) => {
    const group = (upper[c] as string) || (c > 0 && part ? (upper[c - 1] as string) || (upper[c - 2] as string) : '');
    return group && part && group !== part ? `${group} ${part}` : group || part;
  });
  const subtotal = shape.rows.findIndex((r) => String(r[0]).includes('소계'));
  const without = {
    ...shape,
    rows: shape.rows.filter((_, i) => i !== subtotal),
    lines: shape.lines.filter((_, i) => i !== subtotal),
  };
  const family = ['가족회원  소계 0 건', '', '', '', '', '', '', '', 0, 0, '', 0, ''];
  const several = {
    ...shape,
    rows: [...shape.rows.slice(0, subtotal + 1), family, ...shape.rows.slice(subtotal + 1)],
    lines: [...shape.lines.slice(0, subtotal + 1), skippedLine(), ...shape.lines.slice(subtotal + 1)],
  };
  return [
    ['the two header rows merged into one', { ...shape, preamble: [], header: merged }],
    [
      'the second header row blank where the first names the column',
      { ...shape, header: shape.header.map((h, c) => (h === upper[c] ? null : h)) },
    ],
    [
      'dates 2026.02.03 instead of 26.02.03',
      mapColumns(shape, [0], (d) => (/^\d\d\.\d\d\.\d\d$/.test(String(d)) ? `20${d}` : d)),
    ],
    ['the empty column removed', dropColumn(shape, 4)],
    [
      'both header rows repeated mid-table (a page break)',
      {
        ...shape,
        rows: [...shape.rows.slice(0, 3), upper, shape.header, ...shape.rows.slice(3)],
        lines: [...shape.lines.slice(0, 3), skippedLine(), skippedLine(), ...shape.lines.slice(3)],
      },
    ],
    ['no 소계', without],
    ['several 소계 (본인, 가족)', several],
  ];
});

xlsxGroup('kakaobank-transactions-xlsx', await xlsxShape('kakaobank-transactions-xlsx'), (shape) => {
  const m = shape.mapping;
  const notes = shape.preamble;
  return [
    ['column A dropped', dropColumn(shape, 0)],
    ['the notes block shortened', { ...shape, preamble: [...notes.slice(0, 7), ...notes.slice(9)] }],
    [
      'the notes block lengthened',
      {
        ...shape,
        preamble: [...notes.slice(0, 9), [null, '※ 추가 안내 1'], [null, '※ 추가 안내 2'], ...notes.slice(9)],
      },
    ],
    ['amounts as numbers', mapColumns(shape, [m.amount, m.balance], (c) => Number(String(c).replaceAll(',', '')))],
    [
      'positive amounts written +30,000',
      mapColumns(shape, [m.amount], (c) => (String(c).startsWith('-') ? c : `+${c}`)),
    ],
    ['내용 before 거래금액', cells(shuffleColumns(text(shape), [0, 1, 2, 6, 3, 4, 5, 7]))],
    ['a trailing total row', cells(trailingSummaries(text(shape), ['합계']))],
  ];
});

xlsxGroup('tossbank-transactions-xlsx', await xlsxShape('tossbank-transactions-xlsx'), (shape) => [
  ['the title block removed', cells(headerLines(text(shape), Number.NEGATIVE_INFINITY))],
  ['oldest first', reversed(shape)],
  ['amounts as text -15,800', mapColumns(shape, [shape.mapping.amount], grouped)],
  ['거래 금액 before 적요', cells(shuffleColumns(text(shape), [0, 5, 1, 2, 3, 4, 6, 7]))],
]);

// OFX shapes: text edits of the corpus file. Row numbers (the <STMTTRN> lines) move with the layout: not compared.
function ofxGroup(id: string, variants: (file: string) => [string, string, (line: Line) => Line, string?][]) {
  describe(`variations: ${id}`, () => {
    const e = expectedOf(id);
    const { name, bytes } = statementOf(id);
    const file = bytes.toString('utf8');
    const base = e.lines.map(({ index: _i, rowNumber: _r, ...l }) => l);
    it.each(variants(file))('%s', async (_, variant, adjust, fileName) => {
      await expectVariant(encode(variant, 'UTF-8'), fileName ?? name, {
        lines: base.map(adjust),
        dateOrder: e.dateOrder,
        mapping: e.mapping,
        headerRow: 0,
      });
    });
  });
}

const same = (line: Line) => line;
const untimed = (line: Line) => ({ ...line, time: null });
const OFX2_PROLOG =
  '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\r\n' +
  '<?OFX OFXHEADER="200" VERSION="211" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>\r\n';
const OFX1_HEADER =
  'OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\nCHARSET:1252\r\n' +
  'COMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n';

ofxGroup('chase-creditcard-qfx-sgml', (file) => [
  [
    'the same transactions as OFX 2.x XML (closed tags, <?OFX OFXHEADER="200"?>)',
    edited(
      file,
      (f) => OFX2_PROLOG + f.slice(f.indexOf('<OFX>')).replace(/^(\s*)<([A-Z0-9.]+)>([^<\r\n]+)$/gm, '$1<$2>$3</$2>'),
    ),
    same,
  ],
  [
    'DTPOSTED without a time',
    edited(file, (f) => f.replace(/<DTPOSTED>(\d{8})\d{6}\[[^\]]*\]/g, '<DTPOSTED>$1')),
    untimed,
  ],
  [
    'DTPOSTED with fractional seconds and another zone',
    edited(file, (f) => f.replace(/<DTPOSTED>(\d{14})\[0:GMT\]/g, '<DTPOSTED>$1.000[-5:EST]')),
    same,
  ],
  ['LF line ends', edited(file, (f) => f.replaceAll('\r\n', '\n')), same],
  ['tab-indented tags', edited(file, (f) => f.replace(/^</gm, '\t<')), same],
  [
    'a <MEMO> added to every transaction',
    edited(file, (f) => f.replace(/(<NAME>[^\r\n]*\r\n)/g, '$1<MEMO>POS PURCHASE\r\n')),
    same,
  ],
  ['named .ofx instead of .qfx', file, same, 'statement.ofx'],
]);

ofxGroup('checking-ofx-xml', (file) => [
  [
    'the same transactions as OFX 1.02 SGML (leaf tags left open, the colon header)',
    edited(
      file,
      (f) => OFX1_HEADER + f.slice(f.indexOf('<OFX>')).replace(/<([A-Z0-9.]+)>([^<\r\n]+)<\/\1>/g, '<$1>$2'),
    ),
    same,
  ],
  ['encoding declared US-ASCII', edited(file, (f) => f.replace('encoding="UTF-8"', 'encoding="US-ASCII"')), same],
  ['a UTF-8 byte order mark before <?xml', `\uFEFF${file}`, same],
  ['no indentation, no line breaks', edited(file, (f) => f.replace(/>\s+</g, '><')), same],
  [
    'DTPOSTED with a time and a zone',
    edited(file, (f) => f.replace(/<DTPOSTED>(\d{8})<\/DTPOSTED>/g, '<DTPOSTED>$1083000.000[-5:EST]</DTPOSTED>')),
    (line) => ({ ...line, time: '08:30:00' }),
  ],
]);

describe('variations: chase-creditcard-qfx-sgml, a bill payment', () => {
  it('a payment of the bill (CREDIT, Payment Thank You) added: SKIPPED, the other lines unchanged', async () => {
    const id = 'chase-creditcard-qfx-sgml';
    const e = expectedOf(id);
    const file = statementOf(id).bytes.toString('utf8');
    const payment =
      '<STMTTRN>\r\n<TRNTYPE>CREDIT\r\n<DTPOSTED>20260320120000[0:GMT]\r\n<TRNAMT>500.00\r\n' +
      '<FITID>2026032024692160000150000009\r\n<NAME>Payment Thank You-Mobile\r\n</STMTTRN>\r\n';
    const variant = edited(file, (f) => f.replace('</BANKTRANLIST>', `${payment}</BANKTRANLIST>`));
    await expectVariant(encode(variant, 'UTF-8'), 'statement.qfx', {
      lines: [...e.lines.map(({ index: _i, rowNumber: _r, ...l }) => l), skippedLine()],
      dateOrder: e.dateOrder,
      mapping: e.mapping,
    });
  });
});
