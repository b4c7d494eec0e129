import { Writable } from 'node:stream';
import { useTestDatabase } from '@nestegg/testing';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadEnv } from '../env.js';
import { startWorker } from '../worker.js';
import { MEMBERSHIP_EXPIRY_QUEUE } from './membership-expiry.js';
import { STORE_INBOX_SWEEP_QUEUE } from './store-notifications.js';
import { STORE_RETRY_QUEUE } from './store-retries.js';
import { STORE_VOIDED_QUEUE } from './store-voided-purchases.js';

describe('billing configuration of the worker', () => {
  const database = useTestDatabase();

  it('refuses test mode with NODE_ENV=production unless forced, and wants the store all or nothing', () => {
    const production = { DATABASE_URL: database.current.url, NODE_ENV: 'production', BILLING_TEST_MODE: 'true' };
    expect(() => loadEnv(production)).toThrowError(/BILLING_TEST_MODE: refused with NODE_ENV=production/);
    expect(loadEnv({ ...production, BILLING_TEST_MODE_FORCE: 'true' }).BILLING_TEST_MODE).toBe(true);
    expect(() => loadEnv({ DATABASE_URL: database.current.url, STORE_PACKAGE_NAME: 'app.nestegg' })).toThrowError(
      /STORE_SERVICE_ACCOUNT_PRIVATE_KEY: required because STORE_PACKAGE_NAME is set/,
    );
  });

  it('says so in the log when test mode is forced in production, and schedules the billing jobs', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const env = loadEnv({
      DATABASE_URL: database.current.url,
      NODE_ENV: 'production',
      BILLING_TEST_MODE: 'true',
      BILLING_TEST_MODE_FORCE: 'true',
      MEMBERSHIP_EXPIRY_CRON: '13 * * * *',
    });
    const worker = await startWorker(env, logger);
    try {
      expect(lines.join('')).toMatch(/BILLING_TEST_MODE is on in production/);
      const schedules = await worker.boss.getSchedules();
      const names = schedules.map((schedule) => schedule.name);
      for (const queue of [MEMBERSHIP_EXPIRY_QUEUE, STORE_VOIDED_QUEUE, STORE_RETRY_QUEUE, STORE_INBOX_SWEEP_QUEUE]) {
        expect(names).toContain(queue);
      }
      expect(schedules.find((schedule) => schedule.name === MEMBERSHIP_EXPIRY_QUEUE)).toMatchObject({
        cron: '13 * * * *',
      });
    } finally {
      await worker.stop();
    }
  });
});
