import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/migrate.ts', 'src/process-faults.ts', 'src/database-url.ts', 'src/cli/migrate.ts'],
  format: ['esm'],
  dts: { entry: ['src/index.ts', 'src/migrate.ts', 'src/process-faults.ts', 'src/database-url.ts'] },
  clean: true,
  sourcemap: true,
  target: 'es2022',
});
