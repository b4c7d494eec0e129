import { defineConfig } from 'tsup';

// Workspace packages are bundled in, so the deployed app needs only its npm dependencies.
export default defineConfig({
  // The worker threads are files of their own, started from beside the bundle (dist/restore-worker.js by
  // restore-parser.ts, dist/read-worker.js by the statement reader).
  entry: {
    server: 'src/server.ts',
    'cli/admin': 'src/cli/admin.ts',
    'restore-worker': 'src/modules/ledger/backup/restore-worker.ts',
    'read-worker': 'src/modules/ledger/imports/read-worker.ts',
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
