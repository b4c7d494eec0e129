import { type MemberPlan, type MemberRole, member } from '@nestegg/db';
import type { AppFixtureContext } from '@nestegg/testing';
import type { FastifyInstance } from 'fastify';
import { uniqueEmail } from './auth-helpers.js';

/** The environment of a test app: this file's database and Redis prefix, quiet logs, then `overrides`. */
export function testEnvironment(
  context: AppFixtureContext,
  overrides: Record<string, string | undefined> = {},
): NodeJS.ProcessEnv {
  return withoutEmpty({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    DATABASE_URL: context.databaseUrl,
    // Through the run's PgBouncer (decision DB17): the pool on the pooler, LISTEN and the rest on the server.
    ...(context.directDatabaseUrl
      ? { DATABASE_DIRECT_URL: context.directDatabaseUrl, DATABASE_POOLER: 'transaction' }
      : {}),
    REDIS_URL: context.redisUrl,
    REDIS_CLUSTER_NODES: context.redisClusterNodes,
    REDIS_KEY_PREFIX: context.redisKeyPrefix,
    PUBLIC_URL: 'http://nestegg.test',
    // A busy event loop in a test process is the test runner, not traffic: no shedding on it.
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
    // Tests build apps without listening; the metrics test turns runtime metrics on itself.
    METRICS_PORT: '0',
    ...overrides,
  });
}

function withoutEmpty(values: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined && value !== ''));
}

export interface TestMember {
  id: number;
  email: string;
  token: string;
  headers: { authorization: string };
}

/** Inserts a member and opens a session for it, without going through sign-up. */
export async function createMemberWithSession(
  app: FastifyInstance,
  options: { role?: MemberRole; plan?: MemberPlan; email?: string; displayName?: string } = {},
): Promise<TestMember> {
  const email = options.email ?? uniqueEmail();
  const [created] = await app.db
    .insert(member)
    .values({
      email,
      emailVerified: true,
      displayName: options.displayName ?? 'Member',
      role: options.role ?? 'USER',
      plan: options.plan ?? 'FREE',
    })
    .returning();
  const { token } = (await app.services.sessions.open(created!.id, { rememberMe: false }))!;
  return { id: created!.id, email, token, headers: { authorization: `Bearer ${token}` } };
}
