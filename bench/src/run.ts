/**
 * Benchmarks of the hot paths of the member area, through `inject` (no network), on a scratch database
 * migrated from scratch and a scratch Redis prefix: session resolution (every authenticated request pays
 * it), with and without the fast store, and a password login (argon2id dominates).
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres TEST_REDIS_URL=redis://127.0.0.1:6379 pnpm bench
 */

import { buildApp } from '@nestegg/api/app';
import { loadEnv } from '@nestegg/api/env';
import { migrateDatabase } from '@nestegg/db/migrate';
import { createEmptyDatabase, createTestRedis } from '@nestegg/testing';
import type { FastifyInstance } from 'fastify';

async function measure(name: string, iterations: number, operation: () => Promise<unknown>) {
  for (let warmup = 0; warmup < Math.min(50, iterations); warmup += 1) await operation();
  const started = process.hrtime.bigint();
  for (let run = 0; run < iterations; run += 1) await operation();
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  console.log(
    `${name.padEnd(44)} ${(iterations / (elapsedMs / 1000)).toFixed(0).padStart(7)} ops/s  ${(elapsedMs / iterations).toFixed(3)} ms/op`,
  );
}

async function sessionFor(app: FastifyInstance, email: string) {
  await app.inject({
    method: 'POST',
    url: '/api/auth/signup',
    payload: { email, password: 'bench password', displayName: 'Bench' },
  });
  const login = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password: 'bench password' },
  });
  return { authorization: `Bearer ${login.json().token}` };
}

async function main() {
  const database = await createEmptyDatabase();
  const redis = await createTestRedis();
  await migrateDatabase(database.url);
  const base = { DATABASE_URL: database.url, LOG_LEVEL: 'silent', TRUST_PROXY: 'false' };
  const withRedis = await buildApp(loadEnv({ ...base, REDIS_URL: redis.url, REDIS_KEY_PREFIX: redis.keyPrefix }));
  const withoutRedis = await buildApp(loadEnv(base));
  try {
    const cachedHeaders = await sessionFor(withRedis, 'bench-redis@nestegg.test');
    const backupHeaders = await sessionFor(withoutRedis, 'bench-pg@nestegg.test');
    await measure('GET /api/auth/points (session from Redis)', 2000, () =>
      withRedis.inject({ method: 'GET', url: '/api/auth/points', headers: cachedHeaders }),
    );
    await measure('GET /api/auth/points (session from Postgres)', 2000, () =>
      withoutRedis.inject({ method: 'GET', url: '/api/auth/points', headers: backupHeaders }),
    );
    await measure('GET /healthz (no session: baseline)', 2000, () =>
      withRedis.inject({ method: 'GET', url: '/healthz' }),
    );
    await measure('POST /api/auth/login (argon2id verify)', 30, () =>
      withRedis.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: 'bench-redis@nestegg.test', password: 'bench password' },
      }),
    );
  } finally {
    await withRedis.close();
    await withoutRedis.close();
    await redis.cleanup();
    await database.drop();
  }
}

await main();
