import { integrationTestConfig } from '@nestegg/testing/vitest-preset';

export default integrationTestConfig();
