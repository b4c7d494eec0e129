import { databasePoolerOptions, databaseTimeoutOptions, directDatabaseUrl } from '@nestegg/config';
import { createDb, type Database, openJobEngineDatabase } from '@nestegg/db';
import { JOB_SCHEMA } from '@nestegg/db/migrate';
import { type Clock, systemClock } from '@nestegg/domain';
import {
  AppStoreGateway,
  AppStoreSync,
  appStoreConfigOf,
  GooglePlayClient,
  MembershipSync,
  ProductCatalog,
  storeApiConfigOf,
  testModeForcedInProduction,
} from '@nestegg/membership';
import { activeTracing, traceJob } from '@nestegg/telemetry';
import { type ConstructorOptions, PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { WorkerEnv } from './env.js';
import { scheduledJobs } from './jobs/index.js';
import type { JobContext, ScheduledJob } from './jobs/job.js';
import { RECURRING_POSTING_QUEUE } from './jobs/recurring-posting.js';
import { STORE_NOTIFICATION_QUEUE, StoreInbox } from './jobs/store-notifications.js';
import { WorkerMetrics } from './metrics.js';

export interface Worker {
  boss: PgBoss;
  /** Served on the health listener's `/metrics`. */
  metrics: WorkerMetrics;
  /** The store notification inbox (tests dispatch and inspect it). */
  inbox: StoreInbox;
  /** Whether the worker's database answers (readiness; liveness never touches the database). */
  isReady(): Promise<boolean>;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 2000;

export interface WorkerOptions {
  /** Where jobs read the time (tests set it). */
  clock?: Clock;
  /** Runtime metrics (event loop, GC, heap): on where they are served (default on). */
  runtimeMetrics?: boolean;
  /** Job engine settings a test may tighten (e.g. `cronMonitorIntervalSeconds`). */
  boss?: Pick<ConstructorOptions, 'cronMonitorIntervalSeconds' | 'cronWorkerIntervalSeconds'>;
}

/** The billing jobs' membership rules, on the store when it is configured. */
function membershipSync(env: WorkerEnv, db: Database, clock: Clock, logger: Logger) {
  const storeConfig = storeApiConfigOf(env);
  const store = storeConfig ? new GooglePlayClient(storeConfig, clock) : null;
  const catalog = new ProductCatalog(env.BILLING_PRODUCTS);
  const appStoreConfig = appStoreConfigOf(env);
  const appStoreGateway = appStoreConfig ? new AppStoreGateway(appStoreConfig, env.BILLING_TEST_MODE) : null;
  const appStore = new AppStoreSync({ db, gateway: appStoreGateway, catalog, clock, logger });
  if (testModeForcedInProduction(env)) {
    logger.warn(
      'BILLING_TEST_MODE is on in production (BILLING_TEST_MODE_FORCE): test purchases renew without payment',
    );
  }
  const sync = new MembershipSync({ db, store, catalog, clock, logger, testMode: env.BILLING_TEST_MODE, appStore });
  return { store, sync, appStore, appStoreGateway };
}

async function register(
  boss: PgBoss,
  job: ScheduledJob,
  env: WorkerEnv,
  context: JobContext,
  metrics: WorkerMetrics,
): Promise<void> {
  await boss.createQueue(job.queue);
  await boss.schedule(job.queue, job.cron(env), null, { tz: env.JOBS_TIMEZONE });
  // A span per run (decision O14): a scheduled run has no cause to link to.
  await boss.work(job.queue, async ([run]) =>
    traceJob({ queue: job.queue, id: run?.id }, async () => {
      const summary = await metrics.time(job.queue, () => job.run(context, env));
      if (job.queue === RECURRING_POSTING_QUEUE) metrics.recurringPostings.inc(Number(summary.posted ?? 0));
      context.logger.info({ job: job.queue, ...summary }, 'job done');
    }),
  );
}

/**
 * Starts the job engine and registers the scheduled jobs. pg-boss keeps schedules and jobs in Postgres,
 * so however many replicas run, each scheduled run is taken by one of them. The engine's schema is
 * created by the migrate step (`migrate: false` here), so this process needs no DDL rights.
 */
export async function startWorker(env: WorkerEnv, logger: Logger, options: WorkerOptions = {}): Promise<Worker> {
  const tracing = activeTracing();
  const database = createDb(env.DATABASE_URL, {
    max: env.DATABASE_POOL_SIZE,
    applicationName: 'nestegg-billing-worker',
    ...databaseTimeoutOptions(env),
    // Behind a transaction pooler: unnamed statements, SET LOCAL, the inbox's LISTEN on PostgreSQL itself (DB13–DB15).
    ...databasePoolerOptions(env),
    directUrl: directDatabaseUrl(env),
    ...(tracing ? { tracer: tracing.tracer } : {}),
  });
  // The job engine's own pool on the same driver, so it follows a failover as the app's pool does (FO33), on
  // PostgreSQL itself: its LISTEN and its locked plans need a session a transaction pooler does not keep (DB14).
  const jobs = openJobEngineDatabase(directDatabaseUrl(env), {
    max: env.JOBS_POOL_SIZE,
    applicationName: 'nestegg-billing-worker-jobs',
    ...databaseTimeoutOptions(env),
  });
  const boss = new PgBoss({
    db: jobs.db,
    schema: JOB_SCHEMA,
    migrate: false,
    createSchema: false,
    useListenNotify: true,
    ...options.boss,
  });
  boss.on('error', (error: unknown) => logger.error({ err: error }, 'job engine error'));
  try {
    await boss.start();
  } catch (error) {
    await Promise.all([database.close(), jobs.close()]);
    throw new Error(`the job engine did not start (has the migrate step run?): ${(error as Error).message}`);
  }

  const clock: Clock = options.clock ?? systemClock;
  const { store, sync, appStore, appStoreGateway } = membershipSync(env, database.db, clock, logger);
  const metrics = new WorkerMetrics(database.db, { runtime: options.runtimeMetrics ?? true });
  const inbox = new StoreInbox({
    db: database.db,
    sql: database.sql,
    listener: database.listener,
    boss,
    sync,
    appStore,
    logger,
    now: () => clock.now(),
    timeRun: (run) => metrics.time(STORE_NOTIFICATION_QUEUE, run),
  });
  const context: JobContext = {
    db: database.db,
    logger,
    now: () => clock.now(),
    timeZone: env.APP_TIMEZONE,
    membership: { sync, store, appStore, appStoreGateway, dispatchInbox: () => inbox.dispatch() },
  };
  for (const job of scheduledJobs) await register(boss, job, env, context, metrics);
  await inbox.start(env);

  logger.info({ jobs: scheduledJobs.map((job) => job.queue) }, 'billing worker started');
  return {
    boss,
    metrics,
    inbox,
    async isReady() {
      const timeout = new Promise<false>((resolve) => setTimeout(resolve, READY_TIMEOUT_MS, false).unref());
      const probe = database.sql`select 1`.then(
        () => true,
        () => false,
      );
      return Promise.race([probe, timeout]);
    },
    async stop() {
      await inbox.stop();
      await boss.stop({ graceful: true, timeout: 10_000 });
      await Promise.all([database.close(), jobs.close()]);
    },
  };
}
