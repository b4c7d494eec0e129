import { createHash, randomBytes } from 'node:crypto';
import { authSession, type Database, type DbOrTx, type MemberPlan, type MemberRole } from '@nestegg/db';
import { and, eq, gt, ne } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../../infrastructure.js';

export const REMEMBER_ME_TTL_SECONDS = 30 * 24 * 60 * 60;

/** What a request knows about its caller: held in the session, so guards need no member query. */
export interface SessionMember {
  memberId: number;
  displayName: string;
  plan: MemberPlan;
  role: MemberRole;
}

export interface ActiveSession extends SessionMember {
  tokenHash: string;
  rememberMe: boolean;
  expiresAt: Date;
}

interface CachedSession extends SessionMember {
  rememberMe: boolean;
}

export interface SessionStoreDeps {
  db: Database;
  redis: Redis | null;
  logger: FastifyBaseLogger;
  clock: Clock;
  /** Idle lifetime of a session without rememberMe. */
  ttlSeconds: number;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

const cacheKey = (tokenHash: string) => `session:${tokenHash}`;
/** Present while the backup's expiry is fresh; once it lapses, the next use slides the backup too. */
const backupFreshKey = (tokenHash: string) => `session-backup-fresh:${tokenHash}`;
const backupRefreshSeconds = (ttlSeconds: number) => Math.max(1, Math.floor(ttlSeconds / 10));
/**
 * Bumped whenever a cached copy is dropped because the session changed. A restore from the backup caches
 * what it read only if the generation it saw before reading is still current, so a restore that read the
 * row just before a change committed cannot put the old values back.
 */
const generationKey = (tokenHash: string) => `session-generation:${tokenHash}`;
const GENERATION_KEEP_SECONDS = 600;

/** KEYS: session, backup-fresh marker, generation. ARGV: session JSON, lifetime, backup refresh, generation seen. */
const CACHE_IF_CURRENT_SCRIPT = `
if (redis.call('GET', KEYS[3]) or '') ~= ARGV[4] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
redis.call('SET', KEYS[2], '1', 'EX', tonumber(ARGV[3]))
return 1
`;

/**
 * One round trip per authenticated request: reads the cached session, slides it (EXPIRE never brings
 * back a copy that was just dropped), and tells whether the backup is due to slide as well. On a miss it
 * returns the token's generation instead, for the restore.
 * KEYS: session, backup-fresh marker, generation. ARGV: normal lifetime, rememberMe lifetime (seconds).
 */
const TOUCH_SESSION_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
if not raw then return {'miss', redis.call('GET', KEYS[3]) or ''} end
local ttl = tonumber(ARGV[1])
if cjson.decode(raw).rememberMe then ttl = tonumber(ARGV[2]) end
redis.call('EXPIRE', KEYS[1], ttl)
local marked = redis.call('SET', KEYS[2], '1', 'EX', math.max(1, math.floor(ttl / 10)), 'NX')
if marked then return {'hit', raw, 1} end
return {'hit', raw, 0}
`;

/**
 * Sessions live in the fast store (Redis) and in the `auth_session` backup, written together at login.
 * A Redis miss or failure restores the session from the backup and stores it again. Both lifetimes slide.
 */
export class SessionStore {
  private readonly db: Database;
  private readonly redis: Redis | null;

  constructor(private readonly deps: SessionStoreDeps) {
    this.db = deps.db;
    this.redis = deps.redis;
  }

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  ttlFor(rememberMe: boolean): number {
    return rememberMe ? REMEMBER_ME_TTL_SECONDS : this.deps.ttlSeconds;
  }

  async create(member: SessionMember, rememberMe: boolean, tx: DbOrTx = this.db) {
    const token = randomBytes(32).toString('base64url');
    const tokenHash = hashToken(token);
    const expiresAt = new Date(this.now() + this.ttlFor(rememberMe) * 1000);
    await tx.insert(authSession).values({ tokenHash, ...member, rememberMe, expiresAt });
    await this.cache(tokenHash, { ...member, rememberMe });
    return { token, expiresAt };
  }

  async resolve(token: string): Promise<ActiveSession | null> {
    const tokenHash = hashToken(token);
    const touched = await this.touchCache(tokenHash);
    if (!touched || 'generation' in touched) return this.restoreFromBackup(tokenHash, touched?.generation);
    const { session, backupDue } = touched;
    const expiresAt = backupDue
      ? await this.slideBackup(tokenHash, session.rememberMe)
      : new Date(this.now() + this.ttlFor(session.rememberMe) * 1000);
    return { ...session, tokenHash, expiresAt };
  }

  async destroy(token: string): Promise<void> {
    const tokenHash = hashToken(token);
    await this.db.delete(authSession).where(eq(authSession.tokenHash, tokenHash));
    await this.forgetCached([tokenHash]);
  }

  /**
   * Revokes every session of a member (suspension, password change), except the `except` token hash.
   * Inside a transaction (`tx`), cached copies must be dropped only after commit, or a concurrent
   * request could cache the old row again: the token hashes are returned for `forgetCached`.
   */
  async destroyAllOf(memberId: number, options: { except?: string; tx?: DbOrTx } = {}): Promise<string[]> {
    const removed = await (options.tx ?? this.db)
      .delete(authSession)
      .where(
        and(eq(authSession.memberId, memberId), options.except ? ne(authSession.tokenHash, options.except) : undefined),
      )
      .returning({ tokenHash: authSession.tokenHash });
    return this.forgetUnlessInTransaction(removed, options.tx);
  }

  /**
   * Writes a new display name, plan or role into every live session of the member. With `tx`, the
   * returned token hashes go to `forgetCached` after commit (see `destroyAllOf`).
   */
  async updateMember(
    memberId: number,
    changes: Partial<Omit<SessionMember, 'memberId'>>,
    tx?: DbOrTx,
  ): Promise<string[]> {
    if (Object.keys(changes).length === 0) return [];
    const updated = await (tx ?? this.db)
      .update(authSession)
      .set(changes)
      .where(eq(authSession.memberId, memberId))
      .returning({ tokenHash: authSession.tokenHash });
    return this.forgetUnlessInTransaction(updated, tx);
  }

  /** Drops cached copies; the next use of each token reloads it from the backup (or finds it gone). */
  async forgetCached(tokenHashes: string[]): Promise<void> {
    if (!this.redis || tokenHashes.length === 0) return;
    try {
      const batch = this.redis.multi().del(...tokenHashes.flatMap((hash) => [cacheKey(hash), backupFreshKey(hash)]));
      for (const hash of tokenHashes)
        batch.incr(generationKey(hash)).expire(generationKey(hash), GENERATION_KEEP_SECONDS);
      await batch.exec();
    } catch (error) {
      // A stale cached copy would outlive the change, so this is worth an error line.
      this.deps.logger.error({ err: error }, 'session cache delete failed');
    }
  }

  private async forgetUnlessInTransaction(rows: { tokenHash: string }[], tx: DbOrTx | undefined): Promise<string[]> {
    const tokenHashes = rows.map((row) => row.tokenHash);
    if (!tx) await this.forgetCached(tokenHashes);
    return tokenHashes;
  }

  /** A hit with its slide result, a miss with the generation to restore under, or null without Redis. */
  private async touchCache(
    tokenHash: string,
  ): Promise<{ session: CachedSession; backupDue: boolean } | { generation: string } | null> {
    if (!this.redis) return null;
    try {
      const result = (await this.redis.eval(
        TOUCH_SESSION_SCRIPT,
        3,
        cacheKey(tokenHash),
        backupFreshKey(tokenHash),
        generationKey(tokenHash),
        this.ttlFor(false),
        this.ttlFor(true),
      )) as ['miss', string] | ['hit', string, number];
      if (result[0] === 'miss') return { generation: result[1] };
      return { session: JSON.parse(result[1]) as CachedSession, backupDue: result[2] === 1 };
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'session cache read failed; using the backup');
      return null;
    }
  }

  /** Caches a session just created (a new token cannot have been dropped). */
  private async cache(tokenHash: string, session: CachedSession): Promise<void> {
    if (!this.redis) return;
    const ttl = this.ttlFor(session.rememberMe);
    try {
      await this.redis
        .multi()
        .set(cacheKey(tokenHash), JSON.stringify(session), 'EX', ttl)
        .set(backupFreshKey(tokenHash), '1', 'EX', backupRefreshSeconds(ttl))
        .exec();
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'session cache write failed; the backup still holds the session');
    }
  }

  private async cacheIfCurrent(tokenHash: string, session: CachedSession, generation: string): Promise<void> {
    if (!this.redis) return;
    const ttl = this.ttlFor(session.rememberMe);
    try {
      await this.redis.eval(
        CACHE_IF_CURRENT_SCRIPT,
        3,
        cacheKey(tokenHash),
        backupFreshKey(tokenHash),
        generationKey(tokenHash),
        JSON.stringify(session),
        ttl,
        backupRefreshSeconds(ttl),
        generation,
      );
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'session cache write failed; the backup still holds the session');
    }
  }

  /** `generation` is what the cache miss saw; without it (Redis failed or absent) nothing is cached. */
  private async restoreFromBackup(tokenHash: string, generation?: string): Promise<ActiveSession | null> {
    const [row] = await this.db
      .select()
      .from(authSession)
      .where(and(eq(authSession.tokenHash, tokenHash), gt(authSession.expiresAt, new Date(this.now()))));
    if (!row) return null;
    const expiresAt = this.backupSlideDue(row.expiresAt, row.rememberMe)
      ? await this.slideBackup(tokenHash, row.rememberMe)
      : row.expiresAt;
    const session: CachedSession = {
      memberId: row.memberId,
      displayName: row.displayName,
      plan: row.plan,
      role: row.role,
      rememberMe: row.rememberMe,
    };
    if (generation !== undefined) await this.cacheIfCurrent(tokenHash, session, generation);
    return { ...session, tokenHash, expiresAt };
  }

  /** Due once a tenth of the lifetime has passed since the last slide. */
  private backupSlideDue(expiresAt: Date, rememberMe: boolean): boolean {
    const lifetimeMs = this.ttlFor(rememberMe) * 1000;
    return expiresAt.getTime() - this.now() < lifetimeMs - backupRefreshSeconds(this.ttlFor(rememberMe)) * 1000;
  }

  private async slideBackup(tokenHash: string, rememberMe: boolean): Promise<Date> {
    const now = new Date(this.now());
    const expiresAt = new Date(now.getTime() + this.ttlFor(rememberMe) * 1000);
    await this.db.update(authSession).set({ expiresAt, lastSeenAt: now }).where(eq(authSession.tokenHash, tokenHash));
    return expiresAt;
  }
}
