import { testConfig } from '@nestegg/testing/vitest-preset';

export default testConfig();
