import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

const conditions = ['@nestegg/source', ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@nestegg/source'] } },
  test: { include: ['test/**/*.test.ts'], testTimeout: 30_000 },
});
