import { createHash, randomUUID } from 'node:crypto';
import { type Database, idempotencyKey, runWithoutCommitHook } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { and, eq, isNotNull, isNull, lt } from 'drizzle-orm';
import type postgres from 'postgres';
import { AppError } from './errors.js';

/** Who is asking what: a member's key on one route, and a digest of the request it came with. */
export interface IdempotencyScope {
  memberId: number;
  route: string;
  key: string;
  requestHash: string;
}

/** A key this request holds: its scope and the id of its claim (a takeover makes a new one). */
export interface HeldKey extends IdempotencyScope {
  claimId: string;
}

export type Claim = { kind: 'claimed'; held: HeldKey } | { kind: 'replay'; status: number; body: unknown };

/** A request still running longer than this (the server's request timeout) is taken to have died. */
const ABANDONED_AFTER_MS = 60_000;

export function requestHashOf(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${JSON.stringify(body ?? null)}`)
    .digest('base64url');
}

class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request.');
  }
}

class IdempotencyKeyInUseError extends AppError {
  constructor() {
    super('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still running.', { retryAfterSeconds: 1 });
  }
}

class IdempotencyOutcomeUnknownError extends AppError {
  constructor() {
    super(
      'IDEMPOTENCY_OUTCOME_UNKNOWN',
      'The request with this Idempotency-Key was carried out, but its answer was lost: it is not run again. ' +
        'Read the current state instead of sending it again.',
    );
  }
}

/** Thrown inside a transaction of a request whose key a retry took over: its writes roll back. */
class IdempotencyClaimLostError extends AppError {
  constructor() {
    super('IDEMPOTENCY_KEY_IN_USE', 'A retry with this Idempotency-Key took it over; this request saved nothing.');
  }
}

/**
 * The record of idempotent requests. The first request claims its key (a row without a status);
 * retries with the same body get the stored answer, a different body 422, and a retry while the first
 * still runs 409. Every transaction the holder commits also marks the key committed (`markCommitted`, run
 * last inside it, decision FO20): from then on the request is never run again, even if its answer is lost
 * (the connection died before `complete`, or it failed after writing): retries get 409
 * `IDEMPOTENCY_OUTCOME_UNKNOWN`. A 5xx answer before any write releases the key so the client can retry;
 * a claim running longer than the abandonment window without committing is taken over by a retry, and the
 * old holder can then commit nothing.
 */
export class IdempotencyStore {
  constructor(private readonly deps: { db: Database; clock: Clock }) {}

  claim(scope: IdempotencyScope): Promise<Claim> {
    return runWithoutCommitHook(() => this.claimOnce(scope));
  }

  /**
   * The last statement of each transaction the holder commits: marks the key committed, or throws (rolling
   * the transaction back) when the claim is no longer this request's.
   */
  async markCommitted(held: HeldKey, tx: postgres.TransactionSql): Promise<void> {
    // Raw postgres.js on the transaction's connection (drizzle turned its date serializers off: a string).
    const marked = await tx`
      update idempotency_key set committed_at = coalesce(committed_at, ${this.deps.clock.now().toISOString()}::timestamptz)
       where member_id = ${held.memberId} and route = ${held.route} and key = ${held.key}
         and claim_id = ${held.claimId}
      returning 1`;
    if (marked.length === 0) throw new IdempotencyClaimLostError();
  }

  complete(held: HeldKey, status: number, body: unknown): Promise<void> {
    return runWithoutCommitHook(async () => {
      await this.deps.db
        .update(idempotencyKey)
        .set({ status, response: body ?? null, completedAt: this.deps.clock.now() })
        .where(this.holds(held));
    });
  }

  /**
   * After a 5xx answer: a key whose request wrote nothing is deleted, so the retry runs; one whose writes
   * committed is closed without an answer, so retries learn at once that the outcome is unknown.
   */
  release(held: HeldKey): Promise<void> {
    return runWithoutCommitHook(async () => {
      const deleted = await this.deps.db
        .delete(idempotencyKey)
        .where(and(this.holds(held), isNull(idempotencyKey.status), isNull(idempotencyKey.committedAt)))
        .returning({ key: idempotencyKey.key });
      if (deleted.length > 0) return;
      await this.deps.db
        .update(idempotencyKey)
        .set({ completedAt: this.deps.clock.now() })
        .where(and(this.holds(held), isNull(idempotencyKey.status), isNotNull(idempotencyKey.committedAt)));
    });
  }

  private async claimOnce(scope: IdempotencyScope): Promise<Claim> {
    const claimId = randomUUID();
    const [claimed] = await this.deps.db
      .insert(idempotencyKey)
      .values({ ...scope, claimId, createdAt: this.deps.clock.now() })
      .onConflictDoNothing()
      .returning({ key: idempotencyKey.key });
    if (claimed) return { kind: 'claimed', held: { ...scope, claimId } };
    const [existing] = await this.deps.db.select().from(idempotencyKey).where(this.matches(scope));
    if (!existing) return this.claimOnce(scope);
    if (existing.requestHash !== scope.requestHash) throw new IdempotencyKeyReusedError();
    if (existing.status !== null) return { kind: 'replay', status: existing.status, body: existing.response };
    const abandoned = existing.createdAt.getTime() < this.cutoff().getTime();
    if (existing.committedAt !== null && (existing.completedAt !== null || abandoned)) {
      throw new IdempotencyOutcomeUnknownError();
    }
    if (!abandoned) throw new IdempotencyKeyInUseError();
    const held = { ...scope, claimId };
    if (await this.takeOverAbandoned(held)) return { kind: 'claimed', held };
    // Another retry took it over, or the holder committed or finished meanwhile: answer from the new state.
    return this.claimOnce(scope);
  }

  /** A claim older than the window whose holder never committed a write: a new claim replaces it. */
  private async takeOverAbandoned(held: HeldKey): Promise<boolean> {
    const [taken] = await this.deps.db
      .update(idempotencyKey)
      .set({ createdAt: this.deps.clock.now(), claimId: held.claimId })
      .where(
        and(
          this.matches(held),
          isNull(idempotencyKey.status),
          isNull(idempotencyKey.committedAt),
          lt(idempotencyKey.createdAt, this.cutoff()),
        ),
      )
      .returning({ key: idempotencyKey.key });
    return taken !== undefined;
  }

  private cutoff(): Date {
    return new Date(this.deps.clock.now().getTime() - ABANDONED_AFTER_MS);
  }

  private holds(held: HeldKey) {
    return and(this.matches(held), eq(idempotencyKey.claimId, held.claimId));
  }

  private matches(scope: IdempotencyScope) {
    return and(
      eq(idempotencyKey.memberId, scope.memberId),
      eq(idempotencyKey.route, scope.route),
      eq(idempotencyKey.key, scope.key),
    );
  }
}
