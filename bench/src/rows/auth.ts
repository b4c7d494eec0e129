import argon2 from 'argon2';
import type { FastifyReply } from 'fastify';
import { beginLogin, loginSucceeded } from '../baseline/attempts.js';
import { type MemberRow, memberProfileById, toMemberResponse } from '../baseline/members.js';
import { ARGON2_OPTIONS, argon2VerificationsPerSecond, boundedVerify } from '../baseline/passwords.js';
import { openSession, resolveSession } from '../baseline/session.js';
import { BENCH_LOGIN, BENCH_MEMBER, BENCH_PASSWORD, membersDataset } from '../datasets/members.js';
import { LOGIN_TARGETS, READ_TARGETS } from './targets.js';
import type { BaselineDeps, BaselineHandler, BenchRow } from './types.js';

/** Auth area rows: the profile read (session from Redis, and from the backup with Redis gone) and the login. */

const SIZES = { quick: [10_000], full: [100_000] };
/**
 * The api verifies the cores less one passwords at a time (decision FS1), and refuses an IP's 10th unfinished
 * attempt (attempts count as failures until they succeed). The requests a measurement slice leaves unfinished
 * still count when the next slice starts, so 4 connections (at most 8 unfinished) keep argon2 busy without
 * being refused.
 */
const LOGIN_CONNECTIONS = 4;

const unauthenticated = (reply: FastifyReply) => reply.code(401).send({ code: 'UNAUTHENTICATED' });

const memberByEmail = (deps: BaselineDeps, email: string) =>
  deps.sql<
    MemberRow[]
  >`select "id", "email", "email_verified", "password_hash", "display_name", "role", "status", "provider", "idpone_id", "idptwo_id", "idpone_picture", "profile_image", "profile_image_hash", "plan", "plan_expires_at", "plan_product", "plan_auto_renew", "app_account_token", "points", "created_at", "updated_at" from "member" where lower("member"."email") = ${email}`;

function profileBaseline(deps: BaselineDeps): BaselineHandler {
  return async (request, reply) => {
    const session = await resolveSession(deps, request);
    if (!session) return unauthenticated(reply);
    const [row] = await memberProfileById(deps, session.memberId);
    return row ? toMemberResponse(row) : unauthenticated(reply);
  };
}

/** The api's login: attempts reserved, member found, password verified, session opened, attempts cleared. */
function loginBaseline(deps: BaselineDeps): BaselineHandler {
  return async (request, reply) => {
    const body = request.body as { email: string; password: string };
    const email = body.email.trim().toLowerCase();
    if (!(await beginLogin(deps.redis, request.ip, email))) return reply.code(429).send({ code: 'RATE_LIMITED' });
    const [found] = await memberByEmail(deps, email);
    const verifiedHash = found?.password_hash;
    const ok = verifiedHash ? await boundedVerify(verifiedHash, body.password) : false;
    if (!found || !verifiedHash || !ok) return unauthenticated(reply);
    argon2.needsRehash(verifiedHash, ARGON2_OPTIONS);
    const refuse = (locked: MemberRow) => locked.status === 'SUSPENDED' || locked.password_hash !== verifiedHash;
    const opened = await openSession(deps, found.id, request.headers['user-agent'], refuse);
    if (!opened) return unauthenticated(reply);
    await loginSucceeded(deps.redis, request.ip, email);
    return { token: opened.token, expiresAt: opened.expiresAt.toISOString(), member: toMemberResponse(opened.member) };
  };
}

const profileRequest: BenchRow['request'] = async (setup) => ({
  method: 'GET',
  path: '/api/auth/profile',
  headers: await setup.bearer(BENCH_MEMBER.email),
});

export const authRows: BenchRow[] = [
  {
    key: 'auth.profile',
    name: 'GET /api/auth/profile (session from Redis)',
    dataset: membersDataset,
    sizes: SIZES,
    redis: 'up',
    targets: READ_TARGETS,
    request: profileRequest,
    baseline: profileBaseline,
  },
  {
    key: 'auth.profile.backup',
    name: 'GET /api/auth/profile (Redis stopped: session from Postgres)',
    dataset: membersDataset,
    sizes: SIZES,
    redis: 'lost',
    targets: READ_TARGETS,
    request: profileRequest,
    baseline: profileBaseline,
  },
  {
    key: 'auth.login',
    name: 'POST /api/auth/login (argon2id)',
    dataset: membersDataset,
    sizes: SIZES,
    redis: 'up',
    targets: LOGIN_TARGETS,
    connections: LOGIN_CONNECTIONS,
    request: async () => ({
      method: 'POST',
      path: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: BENCH_LOGIN.email, password: BENCH_PASSWORD }),
    }),
    baseline: loginBaseline,
    comparable: (body) => {
      const { token, expiresAt, ...rest } = body as { token: unknown; expiresAt: unknown };
      return { ...rest, token: typeof token, expiresAt: typeof expiresAt };
    },
    reference: { label: 'raw argon2.verify', measure: argon2VerificationsPerSecond },
  },
];
