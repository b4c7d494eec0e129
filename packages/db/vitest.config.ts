import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['test/**/*.test.ts'], testTimeout: 30000, hookTimeout: 60000 },
  resolve: { conditions: ['@nestegg/source'] },
});
