import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/main.ts'],
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node22',
  esbuildOptions(options) {
    options.conditions = ['@nestegg/source'];
  },
  noExternal: [/^@nestegg\//],
});
