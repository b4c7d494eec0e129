/**
 * The api's module boundaries (decision F13, issue 37), checked in CI by `pnpm --filter @nestegg/api lint:boundaries`.
 *
 * A module is `src/modules/<area>/<module>/`; what other code may use of it is its face, `index.ts`. Tests and
 * test kits may reach further (a module's tests use their own internals, fixtures of others), production code may
 * not. Paths are matched from the folder the cruise starts in, so the same rules check the planted trees of
 * `boundaries.test.ts`.
 */
const MODULE = '(?:^|/)src/modules/([^/]+)/([^/]+)/';
const TEST_CODE = ['\\.test\\.ts$', '\\.fixture\\.ts$', '(?:^|/)src/test/', '/fixtures?/'];

module.exports = {
  forbidden: [
    {
      name: 'module-internals',
      severity: 'error',
      comment:
        "A module uses another module only through that module's face (its index.ts); grow the face instead of reaching in.",
      from: { path: MODULE, pathNot: TEST_CODE },
      to: {
        path: '(?:^|/)src/modules/[^/]+/[^/]+/',
        pathNot: ['(?:^|/)src/modules/$1/$2/', '(?:^|/)src/modules/[^/]+/[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'outside-into-module-internals',
      severity: 'error',
      comment: "Code outside the modules (composition root, app, command line) uses a module through its face only.",
      from: { path: '(?:^|/)src/', pathNot: [MODULE, ...TEST_CODE] },
      to: { path: '(?:^|/)src/modules/[^/]+/[^/]+/', pathNot: '(?:^|/)src/modules/[^/]+/[^/]+/index\\.ts$' },
    },
    {
      name: 'module-loop',
      severity: 'error',
      comment: 'Modules depend on each other one way only: a loop means a face function belongs in one of them, or in a kernel.',
      scope: 'folder',
      from: { path: '(?:^|/)src/modules/[^/]+/[^/]+$' },
      to: { path: '(?:^|/)src/modules/[^/]+/[^/]+$', circular: true },
    },
    {
      name: 'lower-layers-into-modules',
      severity: 'error',
      comment: 'lib/, plugins/ and env.ts sit below the modules: they never import from them (the modules import them).',
      from: { path: ['(?:^|/)src/lib/', '(?:^|/)src/plugins/', '(?:^|/)src/env\\.ts$'], pathNot: TEST_CODE },
      to: { path: '(?:^|/)src/modules/' },
    },
    {
      name: 'modules-into-the-composition',
      severity: 'error',
      comment: 'Modules take their dependencies as arguments; they never import the composition root or the app.',
      from: { path: MODULE, pathNot: TEST_CODE },
      to: { path: ['(?:^|/)src/services\\.ts$', '(?:^|/)src/app\\.ts$', '(?:^|/)src/infrastructure\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Test code is exempt: tests use their module's internals and other modules' fixtures.
    exclude: { path: ['node_modules', ...TEST_CODE] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'], conditionNames: ['@nestegg/source', 'import', 'default'] },
  },
};
