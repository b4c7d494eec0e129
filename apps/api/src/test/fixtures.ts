import {
  createDatabaseFromTemplate,
  createTestRedis,
  databaseUrlsFor,
  type RedisTopology,
  type TestDatabase,
  type TestRedis,
} from '@nestegg/testing';
import type { FastifyInstance } from 'fastify';
import { test as base, inject } from 'vitest';
import { type BuildAppOptions, buildApp } from '../app.js';
import { loadEnv } from '../env.js';
import { createMemberWithSession, type TestMember, testEnvironment } from './app.js';
import { type ApiClient, contractClient } from './client.js';

/** A member with a session and a typed client that sends its token. */
export interface Caller extends TestMember {
  api: ApiClient;
}

export interface ApiFixtures {
  /** This file's own database, copied from the migrated template (for tests that connect to it themselves). */
  testDatabase: TestDatabase;
  /** This file's own Redis key prefix, with a client that lists and deletes its keys. */
  testRedis: TestRedis;
  /** This file's api, on its own database and Redis prefix. */
  app: FastifyInstance;
  /** A client without a token. */
  anonymous: ApiClient;
  free: Caller;
  premium: Caller;
  admin: Caller;
  /** A second FREE member: the "someone else" of isolation tests. */
  other: Caller;
}

async function callerOf(app: FastifyInstance, kind: 'FREE' | 'PREMIUM' | 'ADMIN'): Promise<Caller> {
  const member = await createMemberWithSession(app, kind === 'ADMIN' ? { role: 'ADMIN' } : { plan: kind });
  return { ...member, api: contractClient(app, { token: member.token }) };
}

/**
 * A vitest `test` with the api fixtures: the app once per file (env `overrides` applied), fresh members
 * per test. `const test = apiTest({ REDIS_URL: '' })` runs the file without Redis; `apiTest({}, { redis:
 * 'cluster' })` runs it on the run's Redis Cluster.
 */
export function apiTest(
  overrides: Record<string, string | undefined> = {},
  options: BuildAppOptions & { redis?: RedisTopology } = {},
) {
  const { redis: topology, ...buildOptions } = options;
  return base.extend<ApiFixtures>({
    testDatabase: [
      // biome-ignore lint/correctness/noEmptyPattern: vitest reads fixture dependencies from this pattern
      async ({}, use) => {
        const database = await createDatabaseFromTemplate(inject('templateDatabase'));
        await use(database);
        await database.drop();
      },
      { scope: 'file' },
    ],
    testRedis: [
      // biome-ignore lint/correctness/noEmptyPattern: vitest reads fixture dependencies from this pattern
      async ({}, use) => {
        const redis = await createTestRedis(topology ? { topology } : {});
        await use(redis);
        await redis.cleanup();
      },
      { scope: 'file' },
    ],
    app: [
      async ({ testDatabase, testRedis }, use) => {
        const context = {
          ...databaseUrlsFor(testDatabase.url),
          redisUrl: testRedis.url,
          redisKeyPrefix: testRedis.keyPrefix,
          ...(testRedis.clusterNodes ? { redisClusterNodes: testRedis.clusterNodes } : {}),
        };
        const app = await buildApp(loadEnv(testEnvironment(context, overrides)), buildOptions);
        await use(app);
        await app.close();
      },
      { scope: 'file' },
    ],
    anonymous: async ({ app }, use) => use(contractClient(app)),
    free: async ({ app }, use) => use(await callerOf(app, 'FREE')),
    premium: async ({ app }, use) => use(await callerOf(app, 'PREMIUM')),
    admin: async ({ app }, use) => use(await callerOf(app, 'ADMIN')),
    other: async ({ app }, use) => use(await callerOf(app, 'FREE')),
  });
}

export const test = apiTest();
