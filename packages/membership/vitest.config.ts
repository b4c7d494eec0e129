import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@nestegg/source'] },
  ssr: { resolve: { conditions: ['@nestegg/source'], externalConditions: ['@nestegg/source'] } },
  test: { include: ['src/**/*.test.ts'] },
});
