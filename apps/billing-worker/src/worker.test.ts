import { useTestDatabase } from '@nestegg/testing';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadEnv } from './env.js';
import { SESSION_CLEANUP_QUEUE } from './jobs/session-cleanup.js';
import { startWorker } from './worker.js';

describe('billing worker', () => {
  const database = useTestDatabase();

  it('schedules the session clean-up in Postgres and stops gracefully', async () => {
    const env = loadEnv({ DATABASE_URL: database.current.url, SESSION_CLEANUP_CRON: '5 4 * * *' });
    const worker = await startWorker(env, pino({ level: 'silent' }));
    try {
      expect(await worker.isHealthy()).toBe(true);
      const schedules = await worker.boss.getSchedules();
      expect(schedules).toContainEqual(expect.objectContaining({ name: SESSION_CLEANUP_QUEUE, cron: '5 4 * * *' }));
    } finally {
      await worker.stop();
    }
  });

  it('refuses to start without DATABASE_URL, naming it', () => {
    expect(() => loadEnv({})).toThrowError(/DATABASE_URL/);
  });
});
