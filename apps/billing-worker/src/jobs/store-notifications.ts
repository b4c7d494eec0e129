import { type Database, type StoreNotification, storeNotification } from '@nestegg/db';
import {
  APP_STORE_NOTIFICATION_TYPES,
  type AppStoreSync,
  belongedToWithdrawnMember,
  type MembershipSync,
  STORE_INBOX_CHANNEL,
  subscriptionNotificationName,
  VOIDED_PRODUCT_TYPE_SUBSCRIPTION,
} from '@nestegg/membership';
import { traceJob } from '@nestegg/telemetry';
import { count, eq, sql } from 'drizzle-orm';
import type { JobWithMetadata, PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type postgres from 'postgres';
import type { WorkerEnv } from '../env.js';
import type { ScheduledJob } from './job.js';

export const STORE_NOTIFICATION_QUEUE = 'store-notification';
export const STORE_INBOX_SWEEP_QUEUE = 'store-inbox-sweep';
const DISPATCH_BATCH = 100;
/** Traceparents of woken rows kept until their dispatch (a row the sweep dispatches later has none). */
const REMEMBERED_TRACEPARENTS = 1000;

interface NotificationJob {
  notificationId: number;
  /** The W3C traceparent of the request that stored the notification, when it was traced (decision O14). */
  traceparent?: string;
}

export interface StoreInboxDeps {
  db: Database;
  /** postgres.js client: the dispatch transaction (pg-boss writes its jobs through it). */
  sql: postgres.Sql;
  /** For LISTEN: on PostgreSQL itself behind a transaction pooler (decision DB14); default `sql`. */
  listener?: postgres.Sql;
  boss: PgBoss;
  sync: MembershipSync;
  /** The App Store's notifications share the inbox (decision BL26). */
  appStore: AppStoreSync;
  logger: Logger;
  now: () => Date;
  /** Wraps each notification's processing (metrics: runs, failures, durations). */
  timeRun?: <T>(run: () => Promise<T>) => Promise<T>;
}

/** pg-boss statements run inside our transaction, so a notification is dispatched exactly once. */
function bossInTransaction(tx: postgres.TransactionSql) {
  return {
    executeSql: async (text: string, values: unknown[] = []) => ({
      rows: await tx.unsafe(text, values as postgres.ParameterOrJSON<never>[]),
    }),
  };
}

/**
 * The store notification inbox on the job engine. New rows are dispatched as jobs the moment the api
 * says so (LISTEN) and by a sweep every minute. Jobs are grouped by purchase token with a group
 * concurrency of 1, so one token is processed by one job at a time across workers (the membership sync
 * also holds the token's advisory lock, against the api and the other jobs). Each job asks the
 * store for the purchase's current state and applies it; failures retry with exponential backoff; a
 * notification no member can be found for is kept as UNMATCHED and reported in the log.
 */
export class StoreInbox {
  private unlisten: (() => Promise<void>) | null = null;
  private dispatching: Promise<number> | null = null;
  private again = false;
  /** Row id → the storing request's traceparent, from the wake-up's payload (`<id> <traceparent>`). */
  private readonly traceparents = new Map<number, string>();

  constructor(private readonly deps: StoreInboxDeps) {}

  async start(env: WorkerEnv): Promise<void> {
    await this.deps.boss.createQueue(STORE_NOTIFICATION_QUEUE, {
      retryLimit: env.STORE_NOTIFICATION_RETRY_LIMIT,
      retryDelay: env.STORE_NOTIFICATION_RETRY_DELAY_SECONDS,
      retryBackoff: true,
      retryDelayMax: env.STORE_NOTIFICATION_RETRY_DELAY_MAX_SECONDS,
      notify: true,
    });
    await this.deps.boss.work<NotificationJob>(
      STORE_NOTIFICATION_QUEUE,
      {
        batchSize: 1,
        includeMetadata: true,
        localConcurrency: 4,
        groupConcurrency: 1,
        pollingIntervalSeconds: 1,
        // New jobs wake the workers (NOTIFY); retries coming due do not, so the backstop poll stays short.
        notifyPollingIntervalSeconds: 2,
      },
      // includeMetadata: the job carries its retryLimit, so the last attempt is known.
      async ([job]) => {
        const notification = job as JobWithMetadata<NotificationJob>;
        const run = () => this.process(notification);
        // A span per notification, linked to the request that stored it (decision O14).
        return traceJob(
          { queue: STORE_NOTIFICATION_QUEUE, id: notification.id, causes: [notification.data.traceparent] },
          () => (this.deps.timeRun ? this.deps.timeRun(run) : run()),
        );
      },
    );
    const listening = await (this.deps.listener ?? this.deps.sql).listen(
      STORE_INBOX_CHANNEL,
      (payload) => {
        this.remember(payload);
        void this.dispatch();
      },
      // Listening anew after its connection closed (a restart, a failover, decision FO33): wake-ups sent meanwhile
      // were not heard, so dispatch now instead of at the next sweep.
      () => void this.dispatch(),
    );
    this.unlisten = listening.unlisten;
    await this.dispatch();
  }

  /** Keeps the traceparent a wake-up carries for its row's dispatch (bounded: the oldest go first). */
  private remember(payload: string): void {
    const [id, traceparent] = payload.split(' ');
    if (!traceparent || !id) return;
    this.traceparents.set(Number(id), traceparent);
    if (this.traceparents.size > REMEMBERED_TRACEPARENTS) {
      const oldest = this.traceparents.keys().next().value;
      if (oldest !== undefined) this.traceparents.delete(oldest);
    }
  }

  async stop(): Promise<void> {
    await this.unlisten?.().catch(() => {});
    await this.dispatching?.catch(() => {});
  }

  /**
   * Hands every RECEIVED row to the job engine, in one transaction with the status change. One pass at a
   * time; a wake-up during a pass runs one more pass after it (its row may have come after the pass read).
   */
  dispatch(): Promise<number> {
    if (this.dispatching) {
      this.again = true;
      return this.dispatching;
    }
    this.dispatching = this.dispatchUntilQuiet().finally(() => {
      this.dispatching = null;
    });
    return this.dispatching;
  }

  private async dispatchUntilQuiet(): Promise<number> {
    let dispatched = 0;
    do {
      this.again = false;
      try {
        dispatched += await this.dispatchReceived();
      } catch (error) {
        this.deps.logger.error({ err: error }, 'store notifications not dispatched; the sweep retries');
        return dispatched;
      }
    } while (this.again);
    return dispatched;
  }

  private async dispatchReceived(): Promise<number> {
    let dispatched = 0;
    for (;;) {
      const batch = await this.deps.sql.begin(async (tx) => {
        const rows = await tx<{ id: number; store: string; purchaseToken: string | null }[]>`
          select id, store, purchase_token as "purchaseToken" from store_notification
           where status = 'RECEIVED' order by id limit ${DISPATCH_BATCH} for update skip locked`;
        for (const row of rows) {
          const traceparent = this.traceparents.get(row.id);
          this.traceparents.delete(row.id);
          await this.deps.boss.send(
            STORE_NOTIFICATION_QUEUE,
            { notificationId: row.id, ...(traceparent ? { traceparent } : {}) },
            { group: { id: jobGroup(row) }, db: bossInTransaction(tx) },
          );
        }
        if (rows.length > 0) {
          await tx`update store_notification set status = 'DISPATCHED', dispatched_at = now()
                    where id = any(${rows.map((row) => row.id)}::int[])`;
        }
        return rows.length;
      });
      dispatched += batch;
      if (batch < DISPATCH_BATCH) return dispatched;
    }
  }

  /** One notification: applied, or kept (unmatched, rejected); a failure is recorded and thrown for a retry. */
  async process(job: Pick<JobWithMetadata<NotificationJob>, 'data' | 'retryCount' | 'retryLimit'>) {
    const [row] = await this.deps.db
      .select()
      .from(storeNotification)
      .where(eq(storeNotification.id, job.data.notificationId));
    if (!row || !['RECEIVED', 'DISPATCHED'].includes(row.status)) return { skipped: true };
    try {
      const outcome = await this.apply(row);
      await this.settle(row, outcome);
      return { outcome };
    } catch (error) {
      await this.recordFailure(row, error, job.retryCount >= job.retryLimit);
      throw error;
    }
  }

  private async apply(row: StoreNotification): Promise<string> {
    if (row.store === 'APP_STORE') return this.applyAppStore(row);
    const token = row.purchaseToken;
    if (row.kind === 'TEST') return 'TEST';
    if (!token || row.kind === 'ONE_TIME_PRODUCT') return 'NOT_A_SUBSCRIPTION';
    if (row.kind === 'VOIDED_PURCHASE') {
      if (row.notificationType !== VOIDED_PRODUCT_TYPE_SUBSCRIPTION) return 'NOT_A_SUBSCRIPTION';
      return this.deps.sync.revoke(token, this.deps.now());
    }
    const { outcome } = await this.deps.sync.refresh(token);
    if (outcome === 'UNMATCHED' && (await belongedToWithdrawnMember(this.deps.db, token))) return 'MEMBER_WITHDRAWN';
    return outcome;
  }

  /**
   * An App Store notification: whatever its type, the subscription's current status is read from the App Store
   * and applied (decision BL26), so order and repetition do not matter; unknown types are logged, not refused.
   */
  private async applyAppStore(row: StoreNotification): Promise<string> {
    if (row.kind === 'TEST') return 'TEST';
    const type = row.event?.split(':')[0] ?? '';
    if (!APP_STORE_NOTIFICATION_TYPES.includes(type)) {
      this.deps.logger.warn(
        { messageId: row.messageId, event: row.event },
        'App Store notification of an unknown type',
      );
    }
    if (!row.purchaseToken) return 'NO_TRANSACTION';
    if (row.kind === 'ONE_TIME_PRODUCT') return 'NOT_A_SUBSCRIPTION';
    const environment =
      (row.payload as { environment?: string } | null)?.environment === 'Sandbox' ? 'Sandbox' : 'Production';
    const { outcome } = await this.deps.appStore.refresh(row.purchaseToken, environment);
    const withdrawn =
      outcome === 'UNMATCHED' && (await belongedToWithdrawnMember(this.deps.db, row.purchaseToken, 'APP_STORE'));
    return withdrawn ? 'MEMBER_WITHDRAWN' : outcome;
  }

  private async settle(row: StoreNotification, outcome: string): Promise<void> {
    const unmatched = outcome === 'UNMATCHED';
    if (unmatched) {
      this.deps.logger.warn(
        {
          messageId: row.messageId,
          notification:
            row.event ??
            (row.notificationType === null ? row.kind : subscriptionNotificationName(row.notificationType)),
        },
        'store notification for a purchase no member holds: kept as UNMATCHED (a verify of the token settles it)',
      );
    }
    await this.deps.db
      .update(storeNotification)
      .set({
        status: unmatched ? 'UNMATCHED' : 'PROCESSED',
        outcome,
        error: unmatched ? 'no member holds this purchase (yet)' : null,
        processedAt: this.deps.now(),
        attempts: sql`${storeNotification.attempts} + 1`,
      })
      .where(eq(storeNotification.id, row.id));
  }

  private async recordFailure(row: StoreNotification, error: unknown, final: boolean): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    this.deps.logger[final ? 'error' : 'warn'](
      { err: error, messageId: row.messageId },
      final ? 'store notification failed on its last attempt: kept as FAILED' : 'store notification failed; retrying',
    );
    await this.deps.db
      .update(storeNotification)
      .set({
        error: message.slice(0, 1000),
        attempts: sql`${storeNotification.attempts} + 1`,
        ...(final ? { status: 'FAILED' as const } : {}),
      })
      .where(eq(storeNotification.id, row.id));
  }
}

/** The job group of a notification: one purchase at a time, per store (decision BL14). */
function jobGroup(row: { id: number; store: string; purchaseToken: string | null }): string {
  if (!row.purchaseToken) return `notification:${row.id}`;
  return row.store === 'APP_STORE' ? `appstore:${row.purchaseToken}` : row.purchaseToken;
}

/** How many notifications wait for a member (reported by the sweep). */
async function unmatchedCount(db: Database): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(storeNotification)
    .where(eq(storeNotification.status, 'UNMATCHED'));
  return row?.total ?? 0;
}

export const storeInboxSweepJob: ScheduledJob = {
  queue: STORE_INBOX_SWEEP_QUEUE,
  cron: (env) => env.STORE_INBOX_SWEEP_CRON,
  run: async ({ db, membership }) => ({
    dispatched: (await membership?.dispatchInbox()) ?? 0,
    unmatched: await unmatchedCount(db),
  }),
};
