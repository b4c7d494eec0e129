/**
 * docs/performance.md and docs/performance-history.md (issue 37, decision DL18): performance.md is the
 * generated report and "Latest findings", nothing else, and every link into either file, from any markdown
 * page or source file of the repository, leads to a heading that exists (GitHub's anchors).
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FOOTER, RERUN_NOTE } from './report.js';
import { splitReportFile } from './report-file.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const PERFORMANCE_FILES = ['docs/performance.md', 'docs/performance-history.md'];
const SKIPPED = new Set(['node_modules', '.git', 'dist', '.turbo', '.data', '.tools', 'coverage']);

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(path)));
    // Tests (these among them) name made-up anchors.
    else if (/\.(md|ts|mjs|js)$/.test(entry.name) && !entry.name.includes('.test.')) found.push(path);
  }
  return found;
}

/** GitHub's heading anchor (github-slugger): lower case, only letters, marks, digits, `_`, `-` and spaces, spaces → `-`. */
const slugOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');

/** Every anchor of a markdown file's headings (outside code blocks), with GitHub's `-1`, `-2` for repeats. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = slugOf(heading[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

interface Link {
  from: string;
  target: string;
  anchor: string;
}

/**
 * Links into the performance files: markdown links (`](../performance-history.md#…)`, resolved from the linking
 * file, and `](#…)` inside the two files) and, in code and prose, any `performance.md#…` or
 * `performance-history.md#…` (the file of that name under docs/).
 */
function linksIn(file: string, text: string): Link[] {
  const from = relative(root, file);
  const links: Link[] = [];
  const markdownLinks = new Set<number>();
  if (file.endsWith('.md')) {
    for (const match of text.matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)) {
      markdownLinks.add(match.index! + 2 + match[1]!.length);
      const target = match[1] ? relative(root, resolve(dirname(file), match[1])) : from;
      if (PERFORMANCE_FILES.includes(target)) links.push({ from, target, anchor: decodeURIComponent(match[2]!) });
    }
  }
  for (const match of text.matchAll(/(performance(?:-history)?\.md)#([\p{L}\p{N}_-]+)/gu)) {
    if (markdownLinks.has(match.index! + match[1]!.length)) continue;
    links.push({ from, target: `docs/${match[1]}`, anchor: match[2]! });
  }
  return links;
}

describe('docs/performance.md', () => {
  it('is the generated report, then the marker, then "Latest findings" only', async () => {
    const text = await readFile(join(root, 'docs/performance.md'), 'utf8');
    const { report, handWritten } = splitReportFile(text);
    expect(report).toMatch(
      /^# Performance\n\nWritten by `pnpm bench( --quick)?` on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC /,
    );
    expect(report.split('\n')[2]).toContain(RERUN_NOTE);
    expect(report.endsWith(FOOTER.join('\n').trim()), 'the report ends with the method the harness writes').toBe(true);
    expect(handWritten, 'the marker pnpm bench keeps the rest after').not.toBeNull();
    const headings = handWritten!.split('\n').filter((line) => /^#{1,6} /.test(line));
    expect(headings).toEqual(['## Latest findings']);
  });
});

describe('links into the performance files', () => {
  it('lead to headings that exist', async () => {
    const anchors = new Map<string, Set<string>>();
    for (const file of PERFORMANCE_FILES) anchors.set(file, anchorsOf(await readFile(join(root, file), 'utf8')));
    const links: Link[] = [];
    for (const file of await filesUnder(root)) links.push(...linksIn(file, await readFile(file, 'utf8')));
    // The history's entries are cited from performance.md's findings and from the decisions.
    expect(links.filter((link) => link.target === 'docs/performance-history.md').length).toBeGreaterThan(5);
    const broken = links
      .filter((link) => !anchors.get(link.target)!.has(link.anchor))
      .map((link) => `${link.from} → ${link.target}#${link.anchor}`);
    expect(broken).toEqual([]);
  });

  it('are found and checked as GitHub reads them', () => {
    expect(slugOf('2026-11-28 05:25 UTC · Issue 22: the full run of 05:25, on the code as it stands')).toBe(
      '2026-11-28-0525-utc--issue-22-the-full-run-of-0525-on-the-code-as-it-stands',
    );
    expect(slugOf('Paired a fourth time, 2026-11-28 00:25–00:44 UTC')).toBe(
      'paired-a-fourth-time-2026-11-28-00250044-utc',
    );
    expect([
      ...anchorsOf('# A\n\n```sh\n# not a heading\n```\n\n## Reading the table\n\n### Reading the table\n'),
    ]).toEqual(['a', 'reading-the-table', 'reading-the-table-1']);
    const file = join(root, 'docs/decisions/x.md');
    expect(linksIn(file, 'see [it](../performance-history.md#a-b) and `docs/performance.md#running-it`')).toEqual([
      { from: 'docs/decisions/x.md', target: 'docs/performance-history.md', anchor: 'a-b' },
      { from: 'docs/decisions/x.md', target: 'docs/performance.md', anchor: 'running-it' },
    ]);
  });
});
