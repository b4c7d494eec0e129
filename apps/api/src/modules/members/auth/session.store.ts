import { createHash, randomBytes } from 'node:crypto';
import {
  authSession,
  type Database,
  type DbOrTx,
  isDatabaseUnavailable,
  type Member,
  member,
  sessionCacheInvalidation,
} from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { enqueueSessionCacheInvalidations, SESSION_CACHE_DISTRUST_CHANNEL } from '@nestegg/membership';
import { and, asc, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Result } from 'ioredis';
import type postgres from 'postgres';
import type { RedisClient } from '../../../lib/redis.js';
import type { ActiveSession, SessionMember } from '../../../lib/session.js';

export const REMEMBER_ME_TTL_SECONDS = 30 * 24 * 60 * 60;

/** The cached copy: times in epoch milliseconds. */
interface CachedSession extends SessionMember {
  rememberMe: boolean;
  expiresAt: number;
  reauthenticatedAt: number | null;
}

export interface SessionStoreDeps {
  db: Database;
  /** For NOTIFY between api instances (see `forgetCached`). */
  sql: postgres.Sql;
  /** For LISTEN: on PostgreSQL itself behind a transaction pooler (decision DB14); default `sql`. */
  listener?: postgres.Sql;
  redis: RedisClient | null;
  logger: FastifyBaseLogger;
  clock: Clock;
  /** Idle lifetime of a session without rememberMe. */
  ttlSeconds: number;
  /** Counts each lookup by how it was answered (metrics). */
  recordLookup?: (result: SessionLookupResult) => void;
}

/**
 * `cache_hit`: from Redis; `cache_miss`: not in Redis, read from the PostgreSQL backup; `cache_error`: Redis
 * failed, read from the backup; `backup`: the cache is off or not trusted (no Redis, invalidations pending).
 */
export type SessionLookupResult = 'cache_hit' | 'cache_miss' | 'cache_error' | 'backup';

export interface OpenSessionOptions {
  rememberMe: boolean;
  userAgent?: string | undefined;
  /** Checks the member as of the session's own transaction (row locked); throws to refuse the session. */
  guard?: (locked: Member) => void;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/**
 * A token's keys share the hash tag `{tokenHash}` (decision R2): the scripts below touch all three at
 * once, which a Redis Cluster allows only within one slot, and tokens (random) spread over the shards.
 * The token hash is base64url, so it holds no brace that could end the tag early.
 */
const cacheKey = (tokenHash: string) => `session:{${tokenHash}}`;
/** Present while the backup's expiry is fresh; once it lapses, the next use slides the backup. */
const slideMarkerKey = (tokenHash: string) => `session:{${tokenHash}}:fresh`;
/**
 * Bumped whenever a cached copy is dropped because the session changed. A write of a cached copy
 * (after a restore or at login) happens only if the generation it saw first is still current, so a
 * restore that read the row just before a change committed cannot put the old values back.
 */
const generationKey = (tokenHash: string) => `session:{${tokenHash}}:generation`;

/** A token's Redis keys (without the key prefix), for tests and tools. */
export const sessionCacheKeys = (tokenHash: string) => ({
  session: cacheKey(tokenHash),
  slideMarker: slideMarkerKey(tokenHash),
  generation: generationKey(tokenHash),
});
const GENERATION_KEEP_SECONDS = 600;
const DRAIN_INTERVAL_MS = 1000;
const DRAIN_BATCH = 500;
const USER_AGENT_MAX = 256;
/**
 * Told by an instance that could not drop a cached copy, and by any process (the billing worker) that
 * changed session rows: every instance distrusts its cache until it drains.
 */
const DISTRUST_CHANNEL = SESSION_CACHE_DISTRUST_CHANNEL;

/**
 * One round trip per authenticated request: reads the cached copy and tells whether the backup is due
 * to slide. The copy is never extended here: it expires exactly when its backup row does (PXAT), so a
 * cached session can never outlive its backup. On a miss it returns the token's generation instead.
 * KEYS: session, slide marker, generation. ARGV: slide interval (ms) normal, with rememberMe.
 */
const TOUCH_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
if not raw then return {'miss', redis.call('GET', KEYS[3]) or ''} end
local interval = ARGV[1]
if cjson.decode(raw).rememberMe then interval = ARGV[2] end
if redis.call('SET', KEYS[2], '1', 'PX', interval, 'NX') then return {'hit', raw, 1} end
return {'hit', raw, 0}
`;

/** KEYS: session, slide marker, generation. ARGV: JSON, expires at (ms), slide interval (ms), generation seen. */
const CACHE_IF_CURRENT_SCRIPT = `
if (redis.call('GET', KEYS[3]) or '') ~= ARGV[4] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
return 1
`;

/** KEYS: session, slide marker, generation. ARGV: seconds the bumped generation is kept. */
const DROP_SCRIPT = `
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('INCR', KEYS[3])
redis.call('EXPIRE', KEYS[3], ARGV[1])
return 1
`;

/** Rewrites a cached copy after its backup slid, only if it still exists (a dropped copy stays dropped). */
const REFRESH_IF_PRESENT_SCRIPT = `
return redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2], 'XX') and 1 or 0
`;

/** What a session needs of its backup row (not its user agent, creation or last use). */
const sessionBackupSelection = {
  memberId: authSession.memberId,
  displayName: authSession.displayName,
  plan: authSession.plan,
  role: authSession.role,
  rememberMe: authSession.rememberMe,
  expiresAt: authSession.expiresAt,
  reauthenticatedAt: authSession.reauthenticatedAt,
};

type TouchResult = ['miss', string] | ['hit', string, number];

declare module 'ioredis' {
  interface RedisCommander<Context> {
    touchSession(
      session: string,
      marker: string,
      generation: string,
      normalMs: number,
      rememberMs: number,
    ): Result<TouchResult, Context>;
    cacheSessionIfCurrent(
      session: string,
      marker: string,
      generation: string,
      json: string,
      expiresAtMs: number,
      intervalMs: number,
      generationSeen: string,
    ): Result<number, Context>;
    refreshSessionIfPresent(session: string, json: string, expiresAtMs: number): Result<number, Context>;
    dropSession(session: string, marker: string, generation: string, keepSeconds: number): Result<number, Context>;
  }
}

/**
 * Sessions live in the `auth_session` backup (the source of truth) and, when Redis is configured, in a
 * cached copy there. A miss, or Redis failing, restores from the backup. Every change to a backup row
 * (revocation, plan/role/name change, re-authentication) also writes the token to an invalidation outbox
 * in the same transaction; the cached copy is dropped after commit and the outbox row deleted only once
 * Redis confirmed it. Until an outbox drain succeeds (at start, after any Redis error or reconnect),
 * cache hits are not trusted, so a change made while Redis was away holds when it returns.
 */
export class SessionStore {
  private readonly db: Database;
  private readonly redis: RedisClient | null;
  private cacheTrusted = false;
  /** Bumped on every distrust: a drain that started before it must not restore trust (its read may predate the change). */
  private distrustEpoch = 0;
  private draining: Promise<void> | null = null;
  /** Built once (the restore runs on every request while Redis is away). */
  private readonly backupByToken;
  private drainTimer: NodeJS.Timeout | null = null;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(private readonly deps: SessionStoreDeps) {
    this.db = deps.db;
    this.redis = deps.redis;
    this.defineScripts();
    this.backupByToken = deps.db
      .select(sessionBackupSelection)
      .from(authSession)
      .where(
        and(eq(authSession.tokenHash, sql.placeholder('tokenHash')), gt(authSession.expiresAt, sql.placeholder('now'))),
      )
      .prepare('session_backup_by_token');
  }

  // -------------------------------------------------------------------------
  // Lifecycle
  // -------------------------------------------------------------------------

  /**
   * Starts retrying pending cache invalidations. The cache is distrusted when Redis drops the connection
   * and when another instance says it could not drop a copy (an outage this instance may not have seen).
   */
  async start(): Promise<void> {
    if (this.redis) {
      this.redis.on('close', () => this.distrustCache());
      this.redis.on('ready', () => void this.drain());
      const distrustAndDrain = () => {
        this.distrustCache();
        // A drain already running may have read the outbox before the change committed: drain once more.
        void this.drain().then(() => (this.cacheTrusted ? undefined : this.drain()));
      };
      // Called again each time the driver listens anew (its connection closed: a restart, a failover to a standby,
      // decision FO33): a distrust told meanwhile was not heard, so distrust until a drain reads the outbox.
      const listening = await (this.deps.listener ?? this.deps.sql).listen(
        DISTRUST_CHANNEL,
        distrustAndDrain,
        distrustAndDrain,
      );
      this.unlisten = listening.unlisten;
    }
    this.drainTimer = setInterval(() => void this.drain(), DRAIN_INTERVAL_MS);
    this.drainTimer.unref();
    await this.drain();
  }

  async stop(): Promise<void> {
    if (this.drainTimer) clearInterval(this.drainTimer);
    await this.unlisten?.().catch(() => {});
    await this.draining;
  }

  ttlFor(rememberMe: boolean): number {
    return rememberMe ? REMEMBER_ME_TTL_SECONDS : this.deps.ttlSeconds;
  }

  // -------------------------------------------------------------------------
  // Opening and resolving
  // -------------------------------------------------------------------------

  /**
   * Opens a session for a member, seeing the member as of its own commit: the member row is locked
   * (shared) while the session row is written, so a concurrent suspension, role or password change, or
   * deletion either commits first (and `guard` sees it) or finds this session and changes it too.
   */
  async open(memberId: number, options: OpenSessionOptions) {
    const token = randomBytes(32).toString('base64url');
    const tokenHash = hashToken(token);
    const expiresAt = new Date(this.now() + this.ttlFor(options.rememberMe) * 1000);
    const locked = await this.db.transaction(async (tx) => {
      const [row] = await tx.select().from(member).where(eq(member.id, memberId)).for('share');
      if (!row) return undefined;
      options.guard?.(row);
      await tx.insert(authSession).values({
        tokenHash,
        memberId,
        displayName: row.displayName,
        plan: row.plan,
        role: row.role,
        rememberMe: options.rememberMe,
        expiresAt,
        userAgent: options.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
      });
      return row;
    });
    if (!locked) return null;
    const session = { ...sessionMemberOf(locked), rememberMe: options.rememberMe, expiresAt, reauthenticatedAt: null };
    // A new token has generation '' until a change drops it: a change racing this login wins.
    await this.cacheIfCurrent(tokenHash, session, '');
    return { token, expiresAt, member: locked };
  }

  async resolve(token: string): Promise<ActiveSession | null> {
    const tokenHash = hashToken(token);
    const trusted = this.cacheTrusted;
    const touched = trusted ? await this.touchCache(tokenHash) : null;
    if (touched?.[0] !== 'hit') {
      this.deps.recordLookup?.(!trusted ? 'backup' : touched === null ? 'cache_error' : 'cache_miss');
      return this.restoreFromBackup(tokenHash, touched?.[1]);
    }
    this.deps.recordLookup?.('cache_hit');
    const cached = JSON.parse(touched[1]) as CachedSession;
    const session = activeSession(tokenHash, cached);
    return touched[2] === 1 ? this.slideCachedSession(session) : session;
  }

  // -------------------------------------------------------------------------
  // Changing and revoking
  // -------------------------------------------------------------------------

  async destroy(token: string): Promise<void> {
    const tokenHash = hashToken(token);
    const removed = await this.db.transaction(async (tx) => {
      const rows = await tx
        .delete(authSession)
        .where(eq(authSession.tokenHash, tokenHash))
        .returning({ tokenHash: authSession.tokenHash });
      return this.enqueue(tx, rows);
    });
    await this.forgetCached(removed);
  }

  /**
   * Revokes every session of a member (suspension, password change, deletion), except `except`.
   * With `tx`, the caller calls `forgetCached` with the returned token hashes after its commit (dropping
   * cached copies before the commit would let a concurrent request cache the old row again).
   */
  async destroyAllOf(memberId: number, options: { except?: string; tx?: DbOrTx } = {}): Promise<string[]> {
    return this.changeRows(options.tx, async (tx) =>
      tx
        .delete(authSession)
        .where(
          and(
            eq(authSession.memberId, memberId),
            options.except ? ne(authSession.tokenHash, options.except) : undefined,
          ),
        )
        .returning({ tokenHash: authSession.tokenHash }),
    );
  }

  /** Ends one session of a member by its id (the member's "sign out this device"); false when none matched. */
  async destroyOne(memberId: number, sessionId: number): Promise<boolean> {
    const removed = await this.changeRows(undefined, (tx) =>
      tx
        .delete(authSession)
        .where(and(eq(authSession.memberId, memberId), eq(authSession.id, sessionId)))
        .returning({ tokenHash: authSession.tokenHash }),
    );
    return removed.length > 0;
  }

  /** Writes a new display name, plan or role into every live session of the member (see `destroyAllOf` for `tx`). */
  async updateMember(
    memberId: number,
    changes: Partial<Omit<SessionMember, 'memberId'>>,
    tx?: DbOrTx,
  ): Promise<string[]> {
    if (Object.keys(changes).length === 0) return [];
    return this.changeRows(tx, (inner) =>
      inner
        .update(authSession)
        .set(changes)
        .where(eq(authSession.memberId, memberId))
        .returning({ tokenHash: authSession.tokenHash }),
    );
  }

  /** Marks the session as re-authenticated now (the password gate or a fresh provider token passed). */
  async markReauthenticated(tokenHash: string): Promise<Date> {
    const now = new Date(this.now());
    await this.changeRows(undefined, (tx) =>
      tx
        .update(authSession)
        .set({ reauthenticatedAt: now })
        .where(eq(authSession.tokenHash, tokenHash))
        .returning({ tokenHash: authSession.tokenHash }),
    );
    return now;
  }

  /** The member's live sessions, newest first, for "where am I signed in". */
  listOf(memberId: number) {
    return this.db
      .select({
        id: authSession.id,
        tokenHash: authSession.tokenHash,
        userAgent: authSession.userAgent,
        createdAt: authSession.createdAt,
        lastSeenAt: authSession.lastSeenAt,
        expiresAt: authSession.expiresAt,
      })
      .from(authSession)
      .where(and(eq(authSession.memberId, memberId), gt(authSession.expiresAt, new Date(this.now()))))
      .orderBy(asc(authSession.createdAt), asc(authSession.id));
  }

  /**
   * Drops cached copies after a change committed. Only once Redis confirms is the outbox row deleted;
   * if Redis fails, the cache is distrusted and the periodic drain retries.
   */
  async forgetCached(tokenHashes: string[]): Promise<void> {
    if (tokenHashes.length === 0) return;
    try {
      await this.dropCachedCopies(tokenHashes);
      await this.db.delete(sessionCacheInvalidation).where(inArray(sessionCacheInvalidation.tokenHash, tokenHashes));
    } catch (error) {
      this.deps.logger.error({ err: error }, 'session cache invalidation failed; retrying until Redis confirms');
      this.distrustCache();
      await this.deps.sql.notify(DISTRUST_CHANNEL, '').catch(() => {});
    }
  }

  // -------------------------------------------------------------------------
  // Internals
  // -------------------------------------------------------------------------

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  private slideIntervalMs(rememberMe: boolean): number {
    return Math.max(1000, Math.floor(this.ttlFor(rememberMe) * 100));
  }

  private defineScripts(): void {
    if (!this.redis || typeof this.redis.touchSession === 'function') return;
    this.redis.defineCommand('touchSession', { numberOfKeys: 3, lua: TOUCH_SCRIPT });
    this.redis.defineCommand('cacheSessionIfCurrent', { numberOfKeys: 3, lua: CACHE_IF_CURRENT_SCRIPT });
    this.redis.defineCommand('refreshSessionIfPresent', { numberOfKeys: 1, lua: REFRESH_IF_PRESENT_SCRIPT });
    this.redis.defineCommand('dropSession', { numberOfKeys: 3, lua: DROP_SCRIPT });
  }

  /** Runs a change to session rows and records their tokens in the outbox, in `tx` or its own transaction. */
  private async changeRows(
    tx: DbOrTx | undefined,
    change: (tx: DbOrTx) => Promise<{ tokenHash: string }[]>,
  ): Promise<string[]> {
    if (tx) return this.enqueue(tx, await change(tx));
    const changed = await this.db.transaction(async (own) => this.enqueue(own, await change(own)));
    await this.forgetCached(changed);
    return changed;
  }

  private async enqueue(tx: DbOrTx, rows: { tokenHash: string }[]): Promise<string[]> {
    const tokenHashes = rows.map((row) => row.tokenHash);
    await enqueueSessionCacheInvalidations(tx, tokenHashes);
    return tokenHashes;
  }

  /**
   * One script per token (its keys share a slot, R2; tokens of one member are on any shard), all sent at
   * once; throws if any of them failed, so the outbox keeps the tokens until every drop is confirmed.
   */
  private async dropCachedCopies(tokenHashes: string[]): Promise<void> {
    const redis = this.redis;
    if (!redis) return;
    const results = await Promise.allSettled(
      tokenHashes.map((hash) =>
        redis.dropSession(cacheKey(hash), slideMarkerKey(hash), generationKey(hash), GENERATION_KEEP_SECONDS),
      ),
    );
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private distrustCache(): void {
    this.cacheTrusted = false;
    this.distrustEpoch += 1;
  }

  /** Retries pending invalidations; trusts the cache again once none is left. One drain at a time. */
  private drain(): Promise<void> {
    this.draining ??= this.drainPending().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  private async drainPending(): Promise<void> {
    const epoch = this.distrustEpoch;
    try {
      for (;;) {
        const pending = await this.db
          .select({ tokenHash: sessionCacheInvalidation.tokenHash })
          .from(sessionCacheInvalidation)
          .limit(DRAIN_BATCH);
        if (pending.length === 0) break;
        const tokenHashes = pending.map((row) => row.tokenHash);
        await this.dropCachedCopies(tokenHashes);
        await this.db.delete(sessionCacheInvalidation).where(inArray(sessionCacheInvalidation.tokenHash, tokenHashes));
      }
      this.cacheTrusted = this.redis !== null && this.redis.status === 'ready' && epoch === this.distrustEpoch;
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'pending session cache invalidations not drained yet');
      // While PostgreSQL is away no session can change (changes commit there), so cached copies stay
      // trusted and requests that need no database keep working (decision FO3).
      if (!isDatabaseUnavailable(error)) this.distrustCache();
    }
  }

  /** A hit with its slide flag, a miss with the generation to restore under, or null when Redis failed. */
  private async touchCache(tokenHash: string): Promise<TouchResult | null> {
    if (!this.redis) return null;
    try {
      return await this.redis.touchSession(
        cacheKey(tokenHash),
        slideMarkerKey(tokenHash),
        generationKey(tokenHash),
        this.slideIntervalMs(false),
        this.slideIntervalMs(true),
      );
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'session cache read failed; using the backup');
      this.distrustCache();
      return null;
    }
  }

  private async cacheIfCurrent(
    tokenHash: string,
    session: Omit<ActiveSession, 'tokenHash'>,
    generation: string,
  ): Promise<void> {
    if (!this.redis || !this.cacheTrusted) return;
    try {
      await this.redis.cacheSessionIfCurrent(
        cacheKey(tokenHash),
        slideMarkerKey(tokenHash),
        generationKey(tokenHash),
        JSON.stringify(cachedSession(session)),
        session.expiresAt.getTime(),
        this.slideIntervalMs(session.rememberMe),
        generation,
      );
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'session cache write failed; the backup still holds the session');
      this.distrustCache();
    }
  }

  /** `generation` is what the cache miss saw; without it (Redis failed, absent or untrusted) nothing is cached. */
  private async restoreFromBackup(tokenHash: string, generation?: string): Promise<ActiveSession | null> {
    // Placeholders skip the column's mapping: the instant goes as text.
    const [row] = await this.backupByToken.execute({ tokenHash, now: new Date(this.now()).toISOString() });
    if (!row) return null;
    const expiresAt = this.slideDue(row.expiresAt, row.rememberMe)
      ? await this.slideBackup(tokenHash, row.rememberMe)
      : row.expiresAt;
    if (!expiresAt) return null;
    const session = {
      ...sessionMemberOf({ ...row, id: row.memberId }),
      rememberMe: row.rememberMe,
      expiresAt,
      reauthenticatedAt: row.reauthenticatedAt,
    };
    if (generation !== undefined) await this.cacheIfCurrent(tokenHash, session, generation);
    return { ...session, tokenHash };
  }

  /** The backup slides; the cached copy follows it, or the session ends when its backup row is gone. */
  private async slideCachedSession(session: ActiveSession): Promise<ActiveSession | null> {
    let expiresAt: Date | null;
    try {
      expiresAt = await this.slideBackup(session.tokenHash, session.rememberMe);
    } catch (error) {
      // PostgreSQL away: the cached copy still answers; the backup slides at a later request (decision FO3).
      if (isDatabaseUnavailable(error)) return session;
      throw error;
    }
    if (!expiresAt) {
      await this.forgetCached([session.tokenHash]);
      return null;
    }
    const slid = { ...session, expiresAt };
    try {
      await this.redis?.refreshSessionIfPresent(
        cacheKey(session.tokenHash),
        JSON.stringify(cachedSession(slid)),
        expiresAt.getTime(),
      );
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'session cache refresh failed');
      this.distrustCache();
    }
    return slid;
  }

  /** Due once a tenth of the lifetime has passed since the last slide. */
  private slideDue(expiresAt: Date, rememberMe: boolean): boolean {
    return expiresAt.getTime() - this.now() < this.ttlFor(rememberMe) * 1000 - this.slideIntervalMs(rememberMe);
  }

  /** The new expiry, or null when the backup row is gone or expired (revoked or cleaned up). */
  private async slideBackup(tokenHash: string, rememberMe: boolean): Promise<Date | null> {
    const now = new Date(this.now());
    const [slid] = await this.db
      .update(authSession)
      .set({ expiresAt: new Date(now.getTime() + this.ttlFor(rememberMe) * 1000), lastSeenAt: now })
      .where(and(eq(authSession.tokenHash, tokenHash), gt(authSession.expiresAt, now)))
      .returning({ expiresAt: authSession.expiresAt });
    return slid?.expiresAt ?? null;
  }
}

function sessionMemberOf(row: Pick<Member, 'id' | 'displayName' | 'plan' | 'role'>): SessionMember {
  return { memberId: row.id, displayName: row.displayName, plan: row.plan, role: row.role };
}

function cachedSession(session: Omit<ActiveSession, 'tokenHash'>): CachedSession {
  return {
    memberId: session.memberId,
    displayName: session.displayName,
    plan: session.plan,
    role: session.role,
    rememberMe: session.rememberMe,
    expiresAt: session.expiresAt.getTime(),
    reauthenticatedAt: session.reauthenticatedAt?.getTime() ?? null,
  };
}

function activeSession(tokenHash: string, cached: CachedSession): ActiveSession {
  return {
    memberId: cached.memberId,
    displayName: cached.displayName,
    plan: cached.plan,
    role: cached.role,
    rememberMe: cached.rememberMe,
    tokenHash,
    expiresAt: new Date(cached.expiresAt),
    reauthenticatedAt: cached.reauthenticatedAt === null ? null : new Date(cached.reauthenticatedAt),
  };
}
