import { createHash } from 'node:crypto';
import { type Database, idempotencyKey } from '@nestegg/db';
import { and, eq, isNull, lt } from 'drizzle-orm';
import type { Clock } from '../infrastructure.js';
import { AppError } from './errors.js';

/** Who is asking what: a member's key on one route, and a digest of the request it came with. */
export interface IdempotencyScope {
  memberId: number;
  route: string;
  key: string;
  requestHash: string;
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; status: number; body: unknown };

/** A request still running longer than this (the server's request timeout) is taken to have died. */
const ABANDONED_AFTER_MS = 60_000;

export function requestHashOf(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${JSON.stringify(body ?? null)}`)
    .digest('base64url');
}

class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request.');
  }
}

class IdempotencyKeyInUseError extends AppError {
  constructor() {
    super(409, 'IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still running.', {
      headers: { 'retry-after': '1' },
    });
  }
}

/**
 * The record of idempotent requests. The first request claims its key (a row without a status);
 * retries with the same body get the stored answer, a different body 422, and a retry while the first
 * still runs 409. An answer of 5xx releases the key so the client can retry.
 */
export class IdempotencyStore {
  constructor(private readonly deps: { db: Database; clock: Clock }) {}

  async claim(scope: IdempotencyScope): Promise<Claim> {
    const [claimed] = await this.deps.db
      .insert(idempotencyKey)
      .values({ ...scope, createdAt: this.deps.clock.now() })
      .onConflictDoNothing()
      .returning({ key: idempotencyKey.key });
    if (claimed) return { kind: 'claimed' };
    const [existing] = await this.deps.db.select().from(idempotencyKey).where(this.matches(scope));
    if (!existing) return this.claim(scope);
    if (existing.requestHash !== scope.requestHash) throw new IdempotencyKeyReusedError();
    if (existing.status !== null) return { kind: 'replay', status: existing.status, body: existing.response };
    if (await this.takeOverAbandoned(scope)) return { kind: 'claimed' };
    throw new IdempotencyKeyInUseError();
  }

  async complete(scope: IdempotencyScope, status: number, body: unknown): Promise<void> {
    await this.deps.db
      .update(idempotencyKey)
      .set({ status, response: body ?? null, completedAt: this.deps.clock.now() })
      .where(this.matches(scope));
  }

  async release(scope: IdempotencyScope): Promise<void> {
    await this.deps.db.delete(idempotencyKey).where(and(this.matches(scope), isNull(idempotencyKey.status)));
  }

  private async takeOverAbandoned(scope: IdempotencyScope): Promise<boolean> {
    const now = this.deps.clock.now();
    const [taken] = await this.deps.db
      .update(idempotencyKey)
      .set({ createdAt: now })
      .where(
        and(
          this.matches(scope),
          isNull(idempotencyKey.status),
          lt(idempotencyKey.createdAt, new Date(now.getTime() - ABANDONED_AFTER_MS)),
        ),
      )
      .returning({ key: idempotencyKey.key });
    return taken !== undefined;
  }

  private matches(scope: IdempotencyScope) {
    return and(
      eq(idempotencyKey.memberId, scope.memberId),
      eq(idempotencyKey.route, scope.route),
      eq(idempotencyKey.key, scope.key),
    );
  }
}
