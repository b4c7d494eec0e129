// The preset by path: @nestegg/testing depends on @nestegg/db, so db cannot depend on it back.
import { testConfig } from '../testing/src/vitest-preset.js';

export default testConfig({ testTimeout: 30_000, hookTimeout: 60_000 });
