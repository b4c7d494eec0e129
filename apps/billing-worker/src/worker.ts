import { createDb } from '@nestegg/db';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { WorkerEnv } from './env.js';
import { deleteExpiredSessions, SESSION_CLEANUP_QUEUE } from './jobs/session-cleanup.js';

export interface Worker {
  boss: PgBoss;
  isHealthy(): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * Starts the job engine and registers the scheduled jobs. pg-boss keeps schedules and jobs in Postgres,
 * so however many replicas run, each scheduled run is taken by one of them.
 */
export async function startWorker(env: WorkerEnv, logger: Logger): Promise<Worker> {
  const database = createDb(env.DATABASE_URL, { max: 4, applicationName: 'nestegg-billing-worker' });
  const boss = new PgBoss({ connectionString: env.DATABASE_URL, schema: 'pgboss', application_name: 'nestegg-pgboss' });
  boss.on('error', (error) => logger.error({ err: error }, 'job engine error'));
  await boss.start();

  await boss.createQueue(SESSION_CLEANUP_QUEUE);
  await boss.schedule(SESSION_CLEANUP_QUEUE, env.SESSION_CLEANUP_CRON, undefined, { tz: env.JOBS_TIMEZONE });
  await boss.work(SESSION_CLEANUP_QUEUE, async () => {
    const deleted = await deleteExpiredSessions(database.db);
    logger.info({ deleted }, 'expired session backups deleted');
  });

  logger.info('billing worker started');
  return {
    boss,
    async isHealthy() {
      try {
        await database.sql`select 1`;
        return true;
      } catch {
        return false;
      }
    },
    async stop() {
      await boss.stop({ graceful: true, timeout: 10_000 });
      await database.close();
    },
  };
}
