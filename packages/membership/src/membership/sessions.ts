/**
 * How a member change reaches live sessions, from any process: the `auth_session` backup rows change in
 * the member's transaction, their tokens go to the `session_cache_invalidation` outbox in that same
 * transaction, and a NOTIFY (delivered at commit) makes every api instance distrust its session cache
 * until it has drained the outbox (dropping the cached copies in Redis). The api's SessionStore drains.
 */
import { authSession, type DbOrTx, type MemberPlan, sessionCacheInvalidation } from '@nestegg/db';
import { eq, sql } from 'drizzle-orm';

/** Every api instance LISTENs here: a cached session may be stale until the outbox is drained. */
export const SESSION_CACHE_DISTRUST_CHANNEL = 'nestegg_session_cache_distrust';

/** Records the tokens whose cached copies must be dropped (written in the transaction of the change). */
export async function enqueueSessionCacheInvalidations(tx: DbOrTx, tokenHashes: readonly string[]): Promise<void> {
  if (tokenHashes.length === 0) return;
  await tx
    .insert(sessionCacheInvalidation)
    .values(tokenHashes.map((tokenHash) => ({ tokenHash })))
    .onConflictDoNothing();
}

/** Tells every api instance, at commit, to distrust its session cache until it drained the outbox. */
export async function notifySessionCacheDistrust(tx: DbOrTx): Promise<void> {
  await tx.execute(sql`select pg_notify(${SESSION_CACHE_DISTRUST_CHANNEL}, '')`);
}

/**
 * Writes a new plan into every live session of the member, in `tx`: the backup rows, the outbox and the
 * NOTIFY. Returns the token hashes (an api instance may drop their cached copies itself after commit).
 */
export async function writePlanToSessions(tx: DbOrTx, memberId: number, plan: MemberPlan): Promise<string[]> {
  const rows = await tx
    .update(authSession)
    .set({ plan })
    .where(eq(authSession.memberId, memberId))
    .returning({ tokenHash: authSession.tokenHash });
  const tokenHashes = rows.map((row) => row.tokenHash);
  await enqueueSessionCacheInvalidations(tx, tokenHashes);
  if (tokenHashes.length > 0) await notifySessionCacheDistrust(tx);
  return tokenHashes;
}
