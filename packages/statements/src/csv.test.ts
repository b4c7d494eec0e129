import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DELIMITERS, detectDelimiter, readCsvGrid } from './csv.js';

describe('detectDelimiter', () => {
  it.each([
    [',', 'a,b,c\n1,2,3\n4,5,6'],
    ['\t', 'a\tb\tc\n1\t"2,5"\t3\n4\t5\t6'],
    [';', 'Datum;Betrag;Text\n01.02.2026;-12,34;Miete, Februar\n02.02.2026;5,00;x'],
    ['|', 'a|b|c\n1|2|3'],
  ])('finds %j', (delimiter, text) => {
    expect(detectDelimiter(text)).toBe(delimiter);
  });

  it('is not misled by title and period lines above the header', () => {
    const text = [
      '신한카드 이용내역, 홍길동님',
      '조회기간: 2026.05.01 ~ 2026.05.31',
      '',
      '이용일자\t가맹점명\t이용금액',
      '2026.05.14\t스타벅스, 강남\t5600',
      '2026.05.15\t쿠팡\t1200',
    ].join('\n');
    expect(detectDelimiter(text)).toBe('\t');
  });

  it('finds the delimiter of random tables (property)', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'b', '가', '1', ' ', '.', '-'), maxLength: 8 });
    fc.assert(
      fc.property(
        fc.constantFrom(...DELIMITERS),
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 2, max: 20 }),
        fc.infiniteStream(cell),
        fc.boolean(),
        (delimiter, width, height, cells, title) => {
          const rows = Array.from({ length: height }, () => Array.from({ length: width }, () => cells.next().value));
          // Cells holding another delimiter are quoted, as a CSV writer does.
          const text = [
            ...(title ? ['A title line'] : []),
            ...rows.map((r) => r.map((c) => (DELIMITERS.some((d) => c.includes(d)) ? `"${c}"` : c)).join(delimiter)),
          ].join('\n');
          expect(detectDelimiter(text)).toBe(delimiter);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('readCsvGrid', () => {
  it('keeps quoted delimiters and line breaks, trims cells, numbers each row by the line it starts on', () => {
    const grid = readCsvGrid('title\n\n"a, x","b\nc", d \n1,2,3\n', ',', 100);
    expect(grid.rows).toEqual([['title'], [''], ['a, x', 'b\nc', 'd'], ['1', '2', '3']]);
    expect(grid.rowNumbers).toEqual([1, 2, 3, 5]);
  });

  it('reads the lines above the table and the table alike (the table parsed from its first full-width line)', () => {
    const text =
      '카드 이용내역\r\n"조회기간\r\n2026.05"\r\n\r\n일자,내용,금액\r\n2026-05-14,a,1\r\n합계\r\n2026-05-15,b,2\r\n';
    const grid = readCsvGrid(text, ',', 100);
    expect(grid.rows).toEqual([
      ['카드 이용내역'],
      ['조회기간\r\n2026.05'],
      [''],
      ['일자', '내용', '금액'],
      ['2026-05-14', 'a', '1'],
      ['합계'],
      ['2026-05-15', 'b', '2'],
    ]);
    expect(grid.rowNumbers).toEqual([1, 2, 4, 5, 6, 7, 8]);
  });

  it('tolerates a stray quote inside a field and a quote that never closes', () => {
    expect(readCsvGrid('a,b\n5" monitor,2\n', ',', 100).rows).toEqual([
      ['a', 'b'],
      ['5" monitor', '2'],
    ]);
    expect(readCsvGrid('a,b\n"x,2\n', ',', 100).rows).toEqual([
      ['a', 'b'],
      ['"x', '2'],
    ]);
  });

  it('stops at the record cap and says so', () => {
    const grid = readCsvGrid('a\nb\nc\nd\n', ',', 2);
    expect(grid.rows).toHaveLength(2);
    expect(grid.capped).toBe(true);
  });
});
