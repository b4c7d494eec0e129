import { type MemberPlan, type MemberRole, member } from '@nestegg/db';
import { useApp } from '@nestegg/testing';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildApp } from '../app.js';
import { loadEnv } from '../env.js';
import { uniqueEmail } from './auth-helpers.js';

/**
 * The api built on this test file's own database and Redis prefix. `overrides` sets env variables
 * (pass `REDIS_URL: ''` to run without Redis).
 */
export function useTestApp(
  overrides: Record<string, string | undefined> = {},
  options: { logger?: FastifyServerOptions['logger'] } = {},
) {
  return useApp(async ({ databaseUrl, redisUrl, redisKeyPrefix }) => {
    const env = loadEnv(
      withoutEmpty({
        NODE_ENV: 'test',
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: redisKeyPrefix,
        PUBLIC_URL: 'http://nestegg.test',
        ...overrides,
      }),
    );
    return buildApp(env, options);
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
  const { token } = await app.services.sessions.create(
    { memberId: created!.id, displayName: created!.displayName, plan: created!.plan, role: created!.role },
    false,
  );
  return { id: created!.id, email, token, headers: { authorization: `Bearer ${token}` } };
}
