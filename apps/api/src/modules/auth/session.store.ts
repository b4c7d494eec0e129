import { createHash, randomBytes } from 'node:crypto';
import { authSession, type Database, type DbOrTx, type MemberPlan, type MemberRole } from '@nestegg/db';
import { and, eq, gt } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';

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
  /** When the Postgres backup expires; the backup slides too, but at most once per refresh interval. */
  backupExpiresAt: string;
}

export interface SessionStoreOptions {
  ttlSeconds: number;
  logger: FastifyBaseLogger;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

const cacheKey = (tokenHash: string) => `session:${tokenHash}`;

/**
 * Sessions live in the fast store (Redis) and in the `auth_session` backup, written together at login.
 * A Redis miss or failure restores the session from the backup and stores it again. Both lifetimes slide.
 */
export class SessionStore {
  constructor(
    private readonly db: Database,
    private readonly redis: Redis | null,
    private readonly options: SessionStoreOptions,
  ) {}

  ttlFor(rememberMe: boolean): number {
    return rememberMe ? REMEMBER_ME_TTL_SECONDS : this.options.ttlSeconds;
  }

  async create(member: SessionMember, rememberMe: boolean, tx: DbOrTx = this.db) {
    const token = randomBytes(32).toString('base64url');
    const tokenHash = hashToken(token);
    const expiresAt = new Date(Date.now() + this.ttlFor(rememberMe) * 1000);
    await tx.insert(authSession).values({ tokenHash, ...member, rememberMe, expiresAt });
    await this.cache(tokenHash, { ...member, rememberMe, backupExpiresAt: expiresAt.toISOString() });
    return { token, expiresAt };
  }

  async resolve(token: string): Promise<ActiveSession | null> {
    const tokenHash = hashToken(token);
    const cached = await this.readCache(tokenHash);
    if (cached) return this.slideBackupIfDue(tokenHash, cached);
    return this.restoreFromBackup(tokenHash);
  }

  async destroy(token: string): Promise<void> {
    const tokenHash = hashToken(token);
    await this.db.delete(authSession).where(eq(authSession.tokenHash, tokenHash));
    await this.forgetCached([tokenHash]);
  }

  /** Revokes every session of a member (suspension, withdrawal, admin delete). */
  async destroyAllOf(memberId: number, tx: DbOrTx = this.db): Promise<void> {
    const removed = await tx
      .delete(authSession)
      .where(eq(authSession.memberId, memberId))
      .returning({ tokenHash: authSession.tokenHash });
    await this.forgetCached(removed.map((row) => row.tokenHash));
  }

  /**
   * Writes the new display name, plan or role into every live session of the member. The backup is
   * updated and the cached copies dropped, so the next request of each session reloads the new values.
   */
  async updateMember(memberId: number, changes: Partial<Omit<SessionMember, 'memberId'>>, tx: DbOrTx = this.db) {
    if (Object.keys(changes).length === 0) return;
    const updated = await tx
      .update(authSession)
      .set(changes)
      .where(eq(authSession.memberId, memberId))
      .returning({ tokenHash: authSession.tokenHash });
    await this.forgetCached(updated.map((row) => row.tokenHash));
  }

  private async readCache(tokenHash: string): Promise<CachedSession | null> {
    if (!this.redis) return null;
    try {
      const raw = await this.redis.get(cacheKey(tokenHash));
      return raw ? (JSON.parse(raw) as CachedSession) : null;
    } catch (error) {
      this.options.logger.warn({ err: error }, 'session cache read failed; using the backup');
      return null;
    }
  }

  private async cache(tokenHash: string, session: CachedSession): Promise<void> {
    if (!this.redis) return;
    try {
      await this.redis.set(cacheKey(tokenHash), JSON.stringify(session), 'EX', this.ttlFor(session.rememberMe));
    } catch (error) {
      this.options.logger.warn({ err: error }, 'session cache write failed; the backup still holds the session');
    }
  }

  /** Drops cached copies; the next use of each token reloads it from the backup (or finds it gone). */
  async forgetCached(tokenHashes: string[]): Promise<void> {
    if (!this.redis || tokenHashes.length === 0) return;
    try {
      await this.redis.del(...tokenHashes.map(cacheKey));
    } catch (error) {
      // A stale cached copy would outlive the change, so this is worth an error line.
      this.options.logger.error({ err: error }, 'session cache delete failed');
    }
  }

  private async restoreFromBackup(tokenHash: string): Promise<ActiveSession | null> {
    const [row] = await this.db
      .select()
      .from(authSession)
      .where(and(eq(authSession.tokenHash, tokenHash), gt(authSession.expiresAt, new Date())));
    if (!row) return null;
    const expiresAt = await this.slideBackup(tokenHash, row.rememberMe);
    const session: CachedSession = {
      memberId: row.memberId,
      displayName: row.displayName,
      plan: row.plan,
      role: row.role,
      rememberMe: row.rememberMe,
      backupExpiresAt: expiresAt.toISOString(),
    };
    await this.cache(tokenHash, session);
    return toActive(tokenHash, session);
  }

  /** Slides the cache on every use and the backup when a tenth of its lifetime has passed, to spare writes. */
  private async slideBackupIfDue(tokenHash: string, cached: CachedSession): Promise<ActiveSession> {
    const ttlMs = this.ttlFor(cached.rememberMe) * 1000;
    const remainingMs = new Date(cached.backupExpiresAt).getTime() - Date.now();
    const session =
      remainingMs < ttlMs * 0.9
        ? { ...cached, backupExpiresAt: (await this.slideBackup(tokenHash, cached.rememberMe)).toISOString() }
        : cached;
    await this.cache(tokenHash, session);
    return toActive(tokenHash, session);
  }

  private async slideBackup(tokenHash: string, rememberMe: boolean): Promise<Date> {
    const now = new Date();
    const expiresAt = new Date(now.getTime() + this.ttlFor(rememberMe) * 1000);
    await this.db
      .update(authSession)
      .set({ expiresAt, lastSeenAt: now })
      .where(eq(authSession.tokenHash, tokenHash));
    return expiresAt;
  }
}

function toActive(tokenHash: string, session: CachedSession): ActiveSession {
  return {
    tokenHash,
    memberId: session.memberId,
    displayName: session.displayName,
    plan: session.plan,
    role: session.role,
    rememberMe: session.rememberMe,
    expiresAt: new Date(session.backupExpiresAt),
  };
}
