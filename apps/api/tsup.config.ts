import { defineConfig } from 'tsup';

// Workspace packages are bundled in, so the deployed app needs only its npm dependencies.
export default defineConfig({
  // The restore worker is its own file: restore-parser.ts starts it from beside the bundle (dist/restore-worker.js).
  entry: {
    server: 'src/server.ts',
    'cli/admin': 'src/cli/admin.ts',
    'restore-worker': 'src/modules/ledger/backup/restore-worker.ts',
  },
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node22',
  esbuildOptions(options) {
    options.conditions = ['@nestegg/source'];
  },
  noExternal: [/^@nestegg\//],
});
