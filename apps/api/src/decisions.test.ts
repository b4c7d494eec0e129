/**
 * The decision records (issue 37): every entry of `docs/decisions/*.md` opens with its "Rule today", one line
 * that says what holds now, so the current rule can be read without the history under it
 * (docs/decisions/README.md, "Reading an entry"). A superseded entry's rule names the entry that replaced it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const decisionsDir = join(root, 'docs/decisions');

/** The longest a Rule today line may be, bullet included (the README asks for one sentence, about 200). */
const RULE_MAX_CHARACTERS = 400;
const RULE = '- Rule today: ';

interface Entry {
  file: string;
  heading: string;
  /** The entry's lines under its heading, up to the next heading. */
  lines: string[];
}

/** Every `### ` entry of a decisions file, with the lines under it. */
function entriesOf(file: string, markdown: string): Entry[] {
  const entries: Entry[] = [];
  let current: Entry | undefined;
  for (const line of markdown.split('\n')) {
    if (/^#{1,3} /.test(line)) {
      current = line.startsWith('### ') ? { file, heading: line, lines: [] } : undefined;
      if (current) entries.push(current);
    } else current?.lines.push(line);
  }
  return entries;
}

const files = (await readdir(decisionsDir)).filter((name) => name.endsWith('.md') && name !== 'README.md').sort();
const entries = (
  await Promise.all(files.map(async (file) => entriesOf(file, await readFile(join(decisionsDir, file), 'utf8'))))
).flat();

describe('decision records', () => {
  it('has entries to check', () => {
    expect(files.length).toBeGreaterThan(0);
    const withEntries = new Set(entries.map((entry) => entry.file));
    expect(files.filter((file) => !withEntries.has(file))).toEqual([]);
  });

  it.each(entries.map((entry) => [`${entry.file}: ${entry.heading}`, entry] as const))(
    '%s opens with its Rule today, on one line',
    (_, { lines }) => {
      const first = lines.findIndex((line) => line.trim() !== '');
      const rule = lines[first] ?? '';
      expect(rule.startsWith(RULE), `the first bullet is "${RULE}…", found: ${rule}`).toBe(true);
      expect(rule.slice(RULE.length).trim(), 'the rule says something').not.toBe('');
      expect([...rule].length, `at most ${RULE_MAX_CHARACTERS} characters: ${rule}`).toBeLessThanOrEqual(
        RULE_MAX_CHARACTERS,
      );
      const next = lines[first + 1] ?? '';
      expect(next === '' || next.startsWith('- '), `the rule is one line; the next line is a bullet: ${next}`).toBe(
        true,
      );
    },
  );

  it.each(entries.map((entry) => [`${entry.file}: ${entry.heading}`, entry] as const))(
    '%s: a superseded entry says so in its Rule today',
    (_, { lines }) => {
      const status = lines.find((line) => line.startsWith('- Status: '));
      if (!status?.startsWith('- Status: superseded')) return;
      const rule = lines.find((line) => line.trim() !== '') ?? '';
      expect(rule.startsWith(`${RULE}superseded by `), `a superseded entry's rule: ${rule}`).toBe(true);
    },
  );
});
