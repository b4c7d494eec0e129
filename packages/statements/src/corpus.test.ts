/**
 * The corpus (`corpus/<shape>/`: statement.*, SOURCE.md, expected.json; see FORMAT.md): every shape read, mapped and
 * normalised must give its expected.json, every row.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeRows, proposeMapping, readStatement, type StatementLine } from './index.js';

const corpus = new URL('../corpus/', import.meta.url).pathname;
const shapes = existsSync(corpus)
  ? readdirSync(corpus, { withFileTypes: true })
      // every folder but lib/, the corpus's writers (as generate-all.ts)
      .filter((d) => d.isDirectory() && d.name !== 'lib')
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
    // What the proposal must say of the date order: expected.proposal where the data cannot tell (Wise: null, ask),
    // else the order the lines are read under, and only it.
    const proposed = expected.proposal ?? { dateOrder: expected.dateOrder, candidates: [expected.dateOrder] };
    expect({
      format: table.format,
      encoding: table.encoding,
      delimiter: table.delimiter,
      sheet: table.sheet,
      headerRow: table.headerRow,
      mapping: proposal.mapping,
      dateOrder: proposal.dateOrder,
      candidates: proposal.candidates,
    }).toEqual({
      format: expected.format,
      encoding: expected.encoding,
      delimiter: expected.delimiter,
      sheet: expected.sheet,
      headerRow: expected.headerRow,
      mapping: expected.mapping,
      dateOrder: proposed.dateOrder,
      candidates: proposed.candidates,
    });
    const lines = normalizeRows(table, proposal.mapping, { dateOrder: expected.dateOrder, defaultCurrency: 'KRW' });
    // Every field of every line exactly, but a SKIPPED or INVALID line's reason: its wording is the parser's, so the
    // kind is compared exactly and the reason must only be there (non-empty); a transaction has none.
    const wording = (line: StatementLine) => ({ ...line, reason: line.kind === 'TRANSACTION' ? line.reason : '…' });
    expect(lines.map(wording)).toEqual((expected.lines as StatementLine[]).map(wording));
    for (const line of lines) {
      if (line.kind === 'TRANSACTION') expect(line.reason, `line ${line.index}`).toBeNull();
      else expect(line.reason?.trim(), `line ${line.index}: ${line.kind} needs a reason`).toBeTruthy();
    }
  });
});
