/**
 * The apps bundle the workspace packages (tsup `noExternal: @nestegg/*`) and keep npm packages external, so
 * a deployment installs only the app's own dependencies. An npm package that a bundled workspace package
 * depends on, but the app does not, is bundled instead: a CommonJS one then fails at start ("Dynamic
 * require of … is not supported"), as the OpenAPI builder's did. Every such package must be the app's own
 * dependency too.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
type Manifest = { name: string; dependencies?: Record<string, string> };
const manifestAt = (path: string): Manifest => JSON.parse(readFileSync(new URL(path, root), 'utf8'));

const workspace = new Map(
  ['config', 'contract', 'db', 'domain', 'membership', 'openapi', 'statements', 'telemetry'].map((dir) => {
    const manifest = manifestAt(`packages/${dir}/package.json`);
    return [manifest.name, manifest] as const;
  }),
);

/** npm packages the app's bundled workspace packages need, through every workspace level. */
function bundledNpmDependencies(app: Manifest): Set<string> {
  const needed = new Set<string>();
  const visit = (manifest: Manifest) => {
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      const inner = workspace.get(name);
      if (inner) visit(inner);
      else if (manifest !== app) needed.add(name);
    }
  };
  visit(app);
  return needed;
}

describe('bundled apps', () => {
  for (const path of ['apps/api/package.json', 'apps/billing-worker/package.json']) {
    it(`${path} depends on every npm package its bundled workspace packages use`, () => {
      const app = manifestAt(path);
      const own = new Set(Object.keys(app.dependencies ?? {}));
      expect([...bundledNpmDependencies(app)].filter((name) => !own.has(name)).sort()).toEqual([]);
    });
  }
});
