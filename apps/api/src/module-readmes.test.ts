/**
 * The modules' READMEs (issue 37): every module of the api (`apps/api/src/modules/<area>/<module>/`, the areas'
 * `kernel`s aside) has a README.md listing the spec rules it owns (docs/architecture.md, "The api's modules"),
 * and what a README names exists: each file it names, in a link or in backticks, and each decision id.
 *
 * How a README names a file: a link is read from the README's folder (an anchor must be a heading of the page
 * it leads to, and a decision's anchor a heading of the file that holds that decision). A path in backticks (`entry-list.ts`, `../kernel/references.ts`, `lib/locks.ts`,
 * `packages/db/migrations`) is read from the README's folder; one that has a folder in it and does not start
 * with `./` or `../` may instead start at `apps/api/src/`, `apps/api/` or the repository root. A word in
 * backticks counts as a path when it ends in a file extension, ends in `/`, or starts with `./`, `../` or a
 * top folder of the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const modulesDir = join(root, 'apps/api/src/modules');
const decisionsDir = join(root, 'docs/decisions');

/** What an area holds beside its modules: the code its modules share, which owns no rule of its own. */
const NOT_MODULES = new Set(['kernel']);
/** Where a path with a folder in it may start, besides the README's own folder. */
const PATH_ROOTS = ['apps/api/src', 'apps/api', '.'];
const FILE_EXTENSION = /\.(?:ts|tsx|js|cjs|mjs|json|md|sql|yaml|yml|sh)$/;
const TOP_FOLDERS = /^(?:apps|packages|docs|infra|scripts|bench|patches)\//;
const PATH_LIKE = /^[\w@.\-/]+$/;

/** The anchor GitHub gives a heading: lower case, punctuation and symbols dropped, spaces as hyphens. */
function headingAnchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown page's headings (fenced code left out), read once per page. */
const anchorsByPage = new Map<string, Set<string>>();
function anchorsOfPage(file: string): Set<string> {
  let anchors = anchorsByPage.get(file);
  if (!anchors) {
    anchors = anchorsOf(readFileSync(file, 'utf8'));
    anchorsByPage.set(file, anchors);
  }
  return anchors;
}

function anchorsOf(markdown: string): Set<string> {
  const headings = withoutFences(markdown)
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line));
  return new Set(headings.map((line) => headingAnchor(line.replace(/^#+ /, '').trim())));
}

/** The text outside fenced code blocks: what a README says, not what its examples do. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
}

/** Link targets (`[text](target)`) other than web addresses and anchors of the page itself. */
function linkTargetsOf(markdown: string): string[] {
  return [...withoutFences(markdown).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^(?:[a-z]+:|#)/.test(target));
}

/** The words in backticks that are paths (see the header). */
function codePathsOf(markdown: string): string[] {
  return [...withoutFences(markdown).matchAll(/`([^`\n]+)`/g)]
    .map((match) => match[1]!.trim())
    .filter(
      (word) =>
        PATH_LIKE.test(word) &&
        !word.startsWith('/') &&
        !word.startsWith('@') &&
        (FILE_EXTENSION.test(word) || word.endsWith('/') || /^\.\.?\//.test(word) || TOP_FOLDERS.test(word)),
    );
}

/** Where a path in backticks is, or null when it is nowhere it may start. */
function resolveCodePath(readmeDir: string, path: string): string | null {
  const candidates =
    /^\.\.?\//.test(path) || !path.includes('/')
      ? [join(readmeDir, path)]
      : [join(readmeDir, path), ...PATH_ROOTS.map((start) => join(root, start, path))];
  return candidates.find((candidate) => existsSync(candidate)) ?? null;
}

/** Every decision id: the `### <ID>. Title` headings of docs/decisions/, with the file of each. */
async function decisionIds(): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const file of (await readdir(decisionsDir)).filter((name) => name.endsWith('.md'))) {
    const markdown = await readFile(join(decisionsDir, file), 'utf8');
    for (const match of markdown.matchAll(/^### ([A-Z]+\d+)\. /gm)) ids.set(match[1]!, file);
  }
  return ids;
}

const ids = await decisionIds();
/** The ids' prefixes, longest first, so `BD5` is read as BD and not as a `D`. */
const prefixes = [...new Set([...ids.keys()].map((id) => id.replace(/\d+$/, '')))].sort(
  (a, b) => b.length - a.length || a.localeCompare(b),
);
const ID_WORD = new RegExp(`\\b(?:${prefixes.join('|')})\\d+\\b`, 'g');

/** The decision ids a README names (outside fenced code). */
function decisionIdsOf(markdown: string): string[] {
  return [...new Set(withoutFences(markdown).match(ID_WORD) ?? [])];
}

interface Module {
  /** `<area>/<module>`. */
  name: string;
  dir: string;
}

async function modules(): Promise<Module[]> {
  const found: Module[] = [];
  for (const area of await readdir(modulesDir, { withFileTypes: true })) {
    if (!area.isDirectory()) continue;
    for (const module of await readdir(join(modulesDir, area.name), { withFileTypes: true })) {
      if (module.isDirectory() && !NOT_MODULES.has(module.name)) {
        found.push({ name: `${area.name}/${module.name}`, dir: join(modulesDir, area.name, module.name) });
      }
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

const allModules = await modules();
const withReadme = allModules.filter((module) => existsSync(join(module.dir, 'README.md')));
const readmes = await Promise.all(
  withReadme.map(async (module) => ({ ...module, markdown: await readFile(join(module.dir, 'README.md'), 'utf8') })),
);

describe('module READMEs', () => {
  it('finds the modules of every area', () => {
    const areas = new Set(allModules.map((module) => module.name.split('/')[0]));
    expect([...areas].sort()).toEqual(['admin', 'billing', 'board', 'ledger', 'members']);
    expect(allModules.length).toBeGreaterThan(20);
  });

  it('every module has one', () => {
    expect(allModules.filter((module) => !withReadme.includes(module)).map((module) => module.name)).toEqual([]);
  });

  it.each(readmes.map((readme) => [readme.name, readme] as const))(
    '%s: every file it links or names in backticks exists',
    (_name, { dir, markdown }) => {
      const missing: string[] = [];
      for (const target of linkTargetsOf(markdown)) {
        const [path, anchor] = decodeURI(target).split('#') as [string, string | undefined];
        const file = join(dir, path);
        if (!existsSync(file)) missing.push(`link ${target}`);
        else if (anchor !== undefined && file.endsWith('.md')) {
          if (!anchorsOfPage(file).has(anchor))
            missing.push(`anchor ${target} (no such heading in ${relative(root, file)})`);
        }
      }
      for (const path of codePathsOf(markdown)) {
        if (resolveCodePath(dir, path) === null) missing.push(`\`${path}\``);
      }
      expect(missing).toEqual([]);
    },
  );

  it.each(readmes.map((readme) => [readme.name, readme] as const))(
    '%s: every decision id it names exists, and its links lead to the file that holds it',
    (_name, { dir, markdown }) => {
      const unknown = decisionIdsOf(markdown).filter((id) => !ids.has(id));
      expect(unknown).toEqual([]);
      const misplaced = linkTargetsOf(markdown)
        .map((target) => {
          const [path = '', anchor = ''] = target.split('#');
          const id = /^([a-z]+\d+)-/.exec(anchor)?.[1]?.toUpperCase();
          const inDecisions = dirname(join(dir, path)) === decisionsDir;
          return { target, id, file: path.split('/').pop(), inDecisions };
        })
        .filter(({ id, file, inDecisions }) => inDecisions && id !== undefined && ids.get(id) !== file)
        .map(({ target }) => target);
      expect(misplaced).toEqual([]);
    },
  );
});

describe('how a README is read', () => {
  it('takes file-like words in backticks as paths, and leaves names, routes and examples alone', () => {
    const markdown = [
      '`entry-list.ts`, `../kernel/references.ts`, `lib/locks.ts`, `packages/db/migrations`, `corpus/`',
      '`contract.ledger.entries`, `/api/account/entries`, `@nestegg/domain`, `02/29`, `account_entry_amount_positive`',
      '```ts',
      "import { x } from './parser.ts';",
      '```',
    ].join('\n');
    expect(codePathsOf(markdown)).toEqual([
      'entry-list.ts',
      '../kernel/references.ts',
      'lib/locks.ts',
      'packages/db/migrations',
      'corpus/',
    ]);
  });

  it('reads decision ids by their prefixes only', () => {
    expect(decisionIdsOf('decisions L12, BD5 and FI2; not USD12, RS256, UTF8 or X1')).toEqual(['L12', 'BD5', 'FI2']);
  });

  it('gives headings the anchors GitHub gives them', () => {
    expect(headingAnchor('CN8. Learning: a merchant → category table, kept by triggers')).toBe(
      'cn8-learning-a-merchant--category-table-kept-by-triggers',
    );
    expect(headingAnchor('FI2. A member’s amounts add up to at most 2^53 − 1: the ledger volume')).toBe(
      'fi2-a-members-amounts-add-up-to-at-most-253--1-the-ledger-volume',
    );
    expect(headingAnchor('BD1. Hot posts: a separate `hotPosts` list beside every page')).toBe(
      'bd1-hot-posts-a-separate-hotposts-list-beside-every-page',
    );
  });
});
