import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { testRedisUrl } from './env.js';

export interface TestRedis {
  url: string;
  /** Every key the code under test writes starts with this, so test files never see each other's keys. */
  keyPrefix: string;
  /** A client on the same prefix, for assertions. */
  client: Redis;
  cleanup(): Promise<void>;
}

export async function createTestRedis(): Promise<TestRedis> {
  const keyPrefix = `nestegg:test:${randomBytes(6).toString('hex')}:`;
  const client = new Redis(testRedisUrl, { keyPrefix, lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  return {
    url: testRedisUrl,
    keyPrefix,
    client,
    async cleanup() {
      await deleteKeysWithPrefix(client, keyPrefix);
      client.disconnect();
    },
  };
}

async function deleteKeysWithPrefix(client: Redis, keyPrefix: string): Promise<void> {
  // SCAN patterns ignore ioredis' keyPrefix, so match the full key and strip the prefix before DEL.
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await client.del(...keys.map((key) => key.slice(keyPrefix.length)));
  } while (cursor !== '0');
}
