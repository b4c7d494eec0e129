import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type postgres from 'postgres';
import type { BaselineDeps } from '../rows/types.js';
import type { MemberRow } from './members.js';
import { type BaselineRedis, scripted } from './scripts.js';

/*
 * The api's session lookup and opening (apps/api/src/modules/members/auth/session.store.ts) without the
 * framework: the same Redis scripts (as ioredis commands, so EVALSHA), the same backup statements. The
 * Lua text is copied verbatim; the harness compares what both send and reports a difference.
 */

const SESSION_TTL_SECONDS = 24 * 3600;
const REMEMBER_ME_TTL_SECONDS = 30 * 24 * 60 * 60;
const USER_AGENT_MAX = 256;

const TOUCH_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
if not raw then return {'miss', redis.call('GET', KEYS[3]) or ''} end
local interval = ARGV[1]
if cjson.decode(raw).rememberMe then interval = ARGV[2] end
if redis.call('SET', KEYS[2], '1', 'PX', interval, 'NX') then return {'hit', raw, 1} end
return {'hit', raw, 0}
`;

const CACHE_IF_CURRENT_SCRIPT = `
if (redis.call('GET', KEYS[3]) or '') ~= ARGV[4] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
return 1
`;

const REFRESH_IF_PRESENT_SCRIPT = `
return redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2], 'XX') and 1 or 0
`;

const sessionScripts = {
  touchSession: { numberOfKeys: 3, lua: TOUCH_SCRIPT },
  cacheSessionIfCurrent: { numberOfKeys: 3, lua: CACHE_IF_CURRENT_SCRIPT },
  refreshSessionIfPresent: { numberOfKeys: 1, lua: REFRESH_IF_PRESENT_SCRIPT },
};

export interface BaselineSession {
  memberId: number;
  displayName: string;
  plan: 'FREE' | 'PREMIUM';
  role: 'USER' | 'ADMIN';
  rememberMe: boolean;
  /** Epoch milliseconds, as the cached copy holds them. */
  expiresAt: number;
  reauthenticatedAt: number | null;
}

interface SessionRow {
  member_id: number;
  display_name: string;
  plan: BaselineSession['plan'];
  role: BaselineSession['role'];
  remember_me: boolean;
  expires_at: Date;
  reauthenticated_at: Date | null;
}

type TouchResult = ['miss', string] | ['hit', string, number];

const ttlFor = (rememberMe: boolean) => (rememberMe ? REMEMBER_ME_TTL_SECONDS : SESSION_TTL_SECONDS);
const slideIntervalMs = (rememberMe: boolean) => Math.max(1000, Math.floor(ttlFor(rememberMe) * 100));
const cacheKey = (tokenHash: string) => `session:{${tokenHash}}`;
const slideMarkerKey = (tokenHash: string) => `session:{${tokenHash}}:fresh`;
const generationKey = (tokenHash: string) => `session:{${tokenHash}}:generation`;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

function bearerToken(request: FastifyRequest): string | null {
  const [scheme, token] = (request.headers.authorization ?? '').split(' ');
  return scheme?.toLowerCase() === 'bearer' && token ? token : null;
}

/**
 * The api trusts its cache only while Redis is connected and every pending invalidation is drained;
 * with nothing to invalidate here, "connected" is the same test.
 */
const trusted = (redis: BaselineRedis) => redis.status === 'ready';

async function touchCache(redis: BaselineRedis, tokenHash: string): Promise<TouchResult | null> {
  try {
    return await scripted(redis, sessionScripts).touchSession(
      cacheKey(tokenHash),
      slideMarkerKey(tokenHash),
      generationKey(tokenHash),
      slideIntervalMs(false),
      slideIntervalMs(true),
    );
  } catch {
    return null;
  }
}

async function cacheIfCurrent(redis: BaselineRedis, tokenHash: string, session: BaselineSession, generation: string) {
  if (!trusted(redis)) return;
  await scripted(redis, sessionScripts)
    .cacheSessionIfCurrent(
      cacheKey(tokenHash),
      slideMarkerKey(tokenHash),
      generationKey(tokenHash),
      JSON.stringify(session),
      session.expiresAt,
      slideIntervalMs(session.rememberMe),
      generation,
    )
    .catch(() => {});
}

async function slideBackup(sql: postgres.Sql, tokenHash: string, rememberMe: boolean): Promise<Date | null> {
  const now = new Date();
  const expiresAt = new Date(now.getTime() + ttlFor(rememberMe) * 1000);
  const [slid] = await sql<
    { expires_at: Date }[]
  >`update "auth_session" set "expires_at" = ${expiresAt}, "last_seen_at" = ${now} where ("auth_session"."token_hash" = ${tokenHash} and "auth_session"."expires_at" > ${now}) returning "expires_at"`;
  return slid?.expires_at ?? null;
}

function slideDue(expiresAt: Date, rememberMe: boolean): boolean {
  return expiresAt.getTime() - Date.now() < ttlFor(rememberMe) * 1000 - slideIntervalMs(rememberMe);
}

async function restoreFromBackup(deps: BaselineDeps, tokenHash: string, generation?: string) {
  const [row] = await deps.sql<
    SessionRow[]
  >`select "member_id", "display_name", "plan", "role", "remember_me", "expires_at", "reauthenticated_at" from "auth_session" where ("auth_session"."token_hash" = ${tokenHash} and "auth_session"."expires_at" > ${new Date()})`;
  if (!row) return null;
  const expiresAt = slideDue(row.expires_at, row.remember_me)
    ? await slideBackup(deps.sql, tokenHash, row.remember_me)
    : row.expires_at;
  if (!expiresAt) return null;
  const session: BaselineSession = {
    memberId: row.member_id,
    displayName: row.display_name,
    plan: row.plan,
    role: row.role,
    rememberMe: row.remember_me,
    expiresAt: expiresAt.getTime(),
    reauthenticatedAt: row.reauthenticated_at?.getTime() ?? null,
  };
  if (generation !== undefined) await cacheIfCurrent(deps.redis, tokenHash, session, generation);
  return session;
}

async function slideCachedSession(deps: BaselineDeps, tokenHash: string, session: BaselineSession) {
  const expiresAt = await slideBackup(deps.sql, tokenHash, session.rememberMe);
  if (!expiresAt) return null;
  const slid = { ...session, expiresAt: expiresAt.getTime() };
  await scripted(deps.redis, sessionScripts)
    .refreshSessionIfPresent(cacheKey(tokenHash), JSON.stringify(slid), slid.expiresAt)
    .catch(() => {});
  return slid;
}

/** The caller's session: one Redis script on a hit, the Postgres backup on a miss or while Redis is away. */
export async function resolveSession(deps: BaselineDeps, request: FastifyRequest): Promise<BaselineSession | null> {
  const token = bearerToken(request);
  if (!token) return null;
  const tokenHash = hashToken(token);
  const touched = trusted(deps.redis) ? await touchCache(deps.redis, tokenHash) : null;
  if (touched?.[0] !== 'hit') return restoreFromBackup(deps, tokenHash, touched?.[1]);
  const session = JSON.parse(touched[1]) as BaselineSession;
  return touched[2] === 1 ? slideCachedSession(deps, tokenHash, session) : session;
}

/**
 * Opens a session the way login does: the member row share-locked while the backup row is written, in
 * one transaction, then the cached copy. Null when the member is gone or `refuse` says no.
 */
export async function openSession(
  deps: BaselineDeps,
  memberId: number,
  userAgent: string | undefined,
  refuse: (locked: MemberRow) => boolean,
) {
  const token = randomBytes(32).toString('base64url');
  const tokenHash = hashToken(token);
  const expiresAt = new Date(Date.now() + ttlFor(false) * 1000);
  const locked = await deps.sql.begin(async (tx) => {
    const [row] = await tx<
      MemberRow[]
    >`select "id", "email", "email_verified", "password_hash", "display_name", "role", "status", "provider", "idpone_id", "idptwo_id", "idpone_picture", "profile_image", "profile_image_hash", "plan", "plan_expires_at", "plan_product", "plan_auto_renew", "app_account_token", "points", "created_at", "updated_at" from "member" where "member"."id" = ${memberId} for share`;
    if (!row || refuse(row)) return undefined;
    await tx`insert into "auth_session" ("id", "token_hash", "member_id", "display_name", "plan", "role", "remember_me", "expires_at", "created_at", "last_seen_at", "user_agent", "reauthenticated_at") values (default, ${tokenHash}, ${memberId}, ${row.display_name}, ${row.plan}, ${row.role}, ${false}, ${expiresAt}, default, default, ${userAgent?.slice(0, USER_AGENT_MAX) ?? null}, default)`;
    return row;
  });
  if (!locked) return null;
  const session: BaselineSession = {
    memberId,
    displayName: locked.display_name,
    plan: locked.plan as BaselineSession['plan'],
    role: locked.role as BaselineSession['role'],
    rememberMe: false,
    expiresAt: expiresAt.getTime(),
    reauthenticatedAt: null,
  };
  // A new token has generation '' until a change drops it.
  await cacheIfCurrent(deps.redis, tokenHash, session, '');
  return { token, expiresAt, member: locked };
}
