import { defineConfig } from 'tsup';

// One entry per area, so a frontend that imports `@nestegg/contract/auth` bundles only that area;
// code shared by several entries goes into chunks. zod and @ts-rest/core are dependencies, which tsup
// leaves external: an app whose zod fits shares one copy with the package (decision C45).
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    auth: 'src/entries/auth.ts',
    admin: 'src/entries/admin.ts',
    board: 'src/entries/board.ts',
    billing: 'src/entries/billing.ts',
    ledger: 'src/entries/ledger.ts',
  },
  format: ['esm'],
  dts: true,
  splitting: true,
  clean: true,
  sourcemap: false,
  target: 'es2022',
});
