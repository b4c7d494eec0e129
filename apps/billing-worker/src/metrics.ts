import type { Database } from '@nestegg/db';
import { JOB_SCHEMA } from '@nestegg/db/migrate';
import { sql } from 'drizzle-orm';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The worker's metrics (decision O1), served on its health listener's `/metrics`: job runs and their
 * durations per queue, how long due jobs wait (lag) and how many there are, the store inbox by status, and
 * recurring postings. Queue and inbox figures are read from PostgreSQL when scraped, so every replica reports
 * the same shared state (alert on `max`, not `sum`, of those).
 */
export class WorkerMetrics {
  readonly registry = new Registry();

  readonly jobRuns = new Counter({
    name: 'nestegg_job_runs_total',
    help: 'Job runs by queue and outcome (ok, failed)',
    labelNames: ['queue', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly jobDuration = new Histogram({
    name: 'nestegg_job_duration_seconds',
    help: 'Duration of job runs by queue',
    labelNames: ['queue'] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  readonly recurringPostings = new Counter({
    name: 'nestegg_recurring_postings_total',
    help: 'Entries posted by recurring transactions',
    registers: [this.registry],
  });

  constructor(db: Database, options: { runtime?: boolean } = {}) {
    this.registry.setDefaultLabels({ service_name: 'nestegg-billing-worker' });
    if (options.runtime !== false) collectDefaultMetrics({ register: this.registry });
    this.observeQueues(db);
    this.observeInbox(db);
  }

  /** Times one run of a job and counts it by outcome. */
  async time<T>(queue: string, run: () => Promise<T>): Promise<T> {
    const end = this.jobDuration.startTimer({ queue });
    try {
      const result = await run();
      this.jobRuns.inc({ queue, outcome: 'ok' });
      return result;
    } catch (error) {
      this.jobRuns.inc({ queue, outcome: 'failed' });
      throw error;
    } finally {
      end();
    }
  }

  private observeQueues(db: Database): void {
    type Row = { queue: string; state: string; jobs: number; lag: number | null };
    // One statement per scrape for both gauges: the registry collects them together, so they share the promise.
    let reading: Promise<Row[]> | null = null;
    const read = () => {
      reading ??= db
        .execute<Row>(sql`
          select name as queue, state::text as state, count(*)::int as jobs,
                 extract(epoch from now() - min(start_after) filter (where state <> 'active' and start_after <= now())) as lag
          from ${sql.raw(`${JOB_SCHEMA}.job`)}
          where state in ('created', 'retry', 'active')
          group by name, state`)
        .then((rows) => [...rows])
        .finally(() => {
          reading = null;
        });
      return reading;
    };
    new Gauge({
      name: 'nestegg_job_queue_jobs',
      help: 'Jobs waiting (created, retry) or running (active), by queue and state',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const row of await read()) this.set({ queue: row.queue, state: row.state }, row.jobs);
      },
    });
    new Gauge({
      name: 'nestegg_job_queue_lag_seconds',
      help: 'How long the oldest due job of each queue has waited to start',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        // A queue has a row per state (created, retry): its lag is the longest of them.
        const lags = new Map<string, number>();
        for (const row of await read()) {
          if (row.lag !== null) lags.set(row.queue, Math.max(lags.get(row.queue) ?? 0, Number(row.lag)));
        }
        for (const [queue, lag] of lags) this.set({ queue }, lag);
      },
    });
  }

  private observeInbox(db: Database): void {
    new Gauge({
      name: 'nestegg_store_inbox_notifications',
      help: 'Open store notifications by status (RECEIVED and DISPATCHED are pending, UNMATCHED await their purchase, FAILED exhausted their retries)',
      labelNames: ['status'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        const rows = await db.execute<{ status: string; notifications: number }>(
          sql`select status::text as status, count(*)::int as notifications from store_notification
              where status in ('RECEIVED', 'DISPATCHED', 'UNMATCHED', 'FAILED') group by status`,
        );
        for (const row of rows) this.set({ status: row.status }, row.notifications);
      },
    });
  }
}
