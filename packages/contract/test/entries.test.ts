import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { moduleGraph } from './module-graph.js';

type ExportTarget = string | Record<string, string>;
type Manifest = {
  private?: boolean;
  license?: string;
  repository?: { url?: string; directory?: string };
  files?: string[];
  sideEffects?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  exports: Record<string, ExportTarget>;
  publishConfig?: { exports?: Record<string, ExportTarget> };
};

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as Manifest;
const areas = ['auth', 'admin', 'board', 'billing', 'ledger'] as const;
/** Source files that belong to one area; everything else in src/ is shared. */
const areaFiles: Record<(typeof areas)[number], RegExp> = {
  auth: /^auth\.ts$/,
  admin: /^admin\.ts$/,
  board: /^board\//,
  billing: /^billing\.ts$/,
  ledger: /^ledger\//,
};

const conditions = (target: ExportTarget | undefined): Record<string, string> => {
  if (!target || typeof target === 'string') throw new Error('expected an object of conditions');
  return target;
};

describe('entry points', () => {
  it.each(['index.ts', ...areas.map((area) => `entries/${area}.ts`)])(
    '%s imports nothing but @ts-rest/core and zod',
    (entry) => {
      const { files, packages } = moduleGraph(entry);
      expect([...packages].sort()).toEqual(['@ts-rest/core', 'zod']);
      expect(files.size).toBeGreaterThan(3);
    },
  );

  it.each(areas)('the %s entry reaches no other area', (area) => {
    const { files } = moduleGraph(`entries/${area}.ts`);
    for (const [other, pattern] of Object.entries(areaFiles)) {
      const reached = [...files].filter((file) => pattern.test(file));
      if (other === area) expect(reached, area).not.toHaveLength(0);
      else expect(reached, `${area} reaches ${other}`).toEqual([]);
    }
  });

  it.each(areas)('the %s entry exports its router, its schema names and the client essentials', async (area) => {
    const module = (await import(`../src/entries/${area}.ts`)) as Record<string, unknown>;
    expect(module[`${area}Contract`], area).toBeTypeOf('object');
    expect(module[`${area}NamedSchemas`], area).toBeTypeOf('object');
    for (const name of ['initClient', 'ProblemSchema', 'ProblemCodeSchema', 'ProblemCode', 'CONTRACT_VERSION']) {
      expect(module[name], `${area} ${name}`).toBeDefined();
    }
  });
});

describe('package manifest', () => {
  it('is publishable: not private, licensed, with a repository and only dist/ shipped', () => {
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe('UNLICENSED');
    expect(manifest.repository).toMatchObject({ directory: 'packages/contract' });
    expect(manifest.files).toEqual(['dist']);
    expect(manifest.sideEffects).toBe(false);
  });

  it('depends on zod 3 and @ts-rest/core itself, no peers, so an app on zod 4 installs it (C45)', () => {
    expect(manifest.peerDependencies).toBeUndefined();
    expect(manifest.dependencies).toEqual({ '@ts-rest/core': '~3.52.1', zod: '^3.25.13' });
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      expect(manifest.devDependencies?.[name], `${name} twice`).toBeUndefined();
    }
  });

  it('exports the root and each area: sources for the workspace, dist with types first', () => {
    expect(Object.keys(manifest.exports)).toEqual(['.', ...areas.map((area) => `./${area}`), './package.json']);
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (subpath === './package.json') continue;
      const { '@nestegg/source': source, ...published } = conditions(target);
      expect(source, subpath).toMatch(/^\.\/src\/.+\.ts$/);
      expect(Object.keys(published), subpath).toEqual(['types', 'default']);
      expect(() => readFileSync(new URL(`../${source}`, import.meta.url)), subpath).not.toThrow();
    }
  });

  it('publishes the same exports without the source condition', () => {
    const published = manifest.publishConfig?.exports ?? {};
    expect(Object.keys(published)).toEqual(Object.keys(manifest.exports));
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'string') {
        expect(published[subpath]).toBe(target);
        continue;
      }
      const { '@nestegg/source': _source, ...rest } = target;
      expect(published[subpath], subpath).toEqual(rest);
      expect(Object.keys(conditions(published[subpath]))[0], subpath).toBe('types');
    }
  });

  it('builds one tsup entry per export', async () => {
    const { default: config } = (await import('../tsup.config.js')) as { default: { entry: Record<string, string> } };
    for (const [subpath, target] of Object.entries(manifest.publishConfig?.exports ?? {})) {
      if (subpath === './package.json') continue;
      const name = conditions(target).default!.replace(/^\.\/dist\/(.+)\.js$/, '$1');
      expect(`./${config.entry[name]}`, subpath).toBe(conditions(manifest.exports[subpath])['@nestegg/source']);
    }
  });
});
