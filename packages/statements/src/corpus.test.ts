/**
 * The corpus (`corpus/<shape>/`: statement.*, SOURCE.md, expected.json; see FORMAT.md): every shape read, mapped and
 * normalised must give its expected.json, every row.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeRows, proposeMapping, readStatement } from './index.js';

const corpus = new URL('../corpus/', import.meta.url).pathname;
const shapes = existsSync(corpus)
  ? readdirSync(corpus, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
  : [];

describe('corpus', () => {
  if (shapes.length === 0) {
    it('has no shapes on this branch (the corpus is written on its own branch; every shape it adds runs here)', () => {
      expect(shapes).toEqual([]);
    });
    return;
  }

  it('holds at least 12 shapes', () => {
    expect(shapes.length).toBeGreaterThanOrEqual(12);
  });

  it.each(shapes)('%s', async (shape) => {
    const dir = join(corpus, shape);
    const files = readdirSync(dir);
    const statement = files.filter((f) => f.startsWith('statement.'));
    expect(statement, 'one statement.* file').toHaveLength(1);
    expect(files).toContain('SOURCE.md');
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));

    const table = await readStatement(new Uint8Array(readFileSync(join(dir, statement[0]!))), statement[0]!);
    const proposal = proposeMapping(table);
    expect({
      format: table.format,
      encoding: table.encoding,
      delimiter: table.delimiter,
      sheet: table.sheet,
      headerRow: table.headerRow,
      mapping: proposal.mapping,
      dateOrder: proposal.dateOrder,
    }).toEqual({
      format: expected.format,
      encoding: expected.encoding,
      delimiter: expected.delimiter,
      sheet: expected.sheet,
      headerRow: expected.headerRow,
      mapping: expected.mapping,
      dateOrder: expected.dateOrder,
    });
    const lines = normalizeRows(table, proposal.mapping, {
      dateOrder: expected.dateOrder ?? proposal.candidates[0] ?? 'YMD',
      defaultCurrency: 'KRW',
    });
    expect(lines).toEqual(expected.lines);
  });
});
