import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type AttemptStore, MemoryAttemptStore } from '../../../lib/attempt-store.js';
import { secondsUntilNextDay } from '../../../lib/daily-quota.js';
import { ReceiptQuota } from './receipt-quota.js';

const logger = pino({ level: 'silent' });
const at = (iso: string) => ({ now: () => new Date(iso) });

describe('receipt quota', () => {
  it('counts per day in the app time zone and gives back a released recognition', async () => {
    const attempts = new MemoryAttemptStore();
    const clock = { at: new Date('2026-05-01T14:59:00Z'), now: () => clock.at };
    const quota = new ReceiptQuota({ attempts, clock, logger, timeZone: 'Asia/Seoul', perDay: 2 });
    await quota.reserve(1);
    const second = await quota.reserve(1);
    await second.release();
    await quota.reserve(1);
    const refused = await quota.reserve(1).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 429, code: 'RECEIPT_QUOTA_EXCEEDED', retryAfterSeconds: 60 });
    await quota.reserve(2);
    clock.at = new Date('2026-05-01T15:00:00Z'); // midnight in Seoul: a new day
    await quota.reserve(1);
  });

  it('refuses (503) when the counter store fails: every call costs money', async () => {
    const broken = {
      reserve: () => Promise.reject(new Error('redis is away')),
      release: () => Promise.reject(new Error('redis is away')),
    } as unknown as AttemptStore;
    const quota = new ReceiptQuota({
      attempts: broken,
      clock: at('2026-05-01T00:00:00Z'),
      logger,
      timeZone: 'UTC',
      perDay: 50,
    });
    await expect(quota.reserve(1)).rejects.toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  });

  it('knows how long until the next day starts', () => {
    expect(secondsUntilNextDay('UTC', new Date('2026-05-01T23:59:30Z'))).toBe(30);
    expect(secondsUntilNextDay('Asia/Seoul', new Date('2026-05-01T15:00:00Z'))).toBe(86_400);
    expect(secondsUntilNextDay('Asia/Seoul', new Date('2026-05-01T12:00:00Z'))).toBe(3 * 3600);
  });
});
