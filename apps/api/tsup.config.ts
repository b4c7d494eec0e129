import { defineConfig } from 'tsup';

// Workspace packages are bundled in, so the deployed app needs only its npm dependencies.
export default defineConfig({
  entry: ['src/server.ts', 'src/cli/admin.ts'],
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node22',
  esbuildOptions(options) {
    options.conditions = ['@nestegg/source'];
  },
  noExternal: [/^@nestegg\//],
});
