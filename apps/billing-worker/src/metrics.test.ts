/**
 * Issue 18 item 2 for the worker: job runs, failures and durations per queue, queue lag and depth, the store
 * inbox by status and recurring postings, on the health listener's `/metrics`, checked by Prometheus's parser.
 */
import type { AddressInfo } from 'node:net';
import { createDb, storeNotification } from '@nestegg/db';
import { checkExposition, parseExposition, useTestDatabase } from '@nestegg/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnv } from './env.js';
import { createHealthServer } from './health.js';
import { SESSION_CLEANUP_QUEUE } from './jobs/session-cleanup.js';
import { startWorker, type Worker } from './worker.js';

const ACCEPTED_NAMES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

describe('worker metrics', () => {
  const database = useTestDatabase();
  let worker: Worker;
  let server: ReturnType<typeof createHealthServer>;
  let base = '';

  beforeAll(async () => {
    worker = await startWorker(loadEnv({ DATABASE_URL: database.current.url }), pino({ level: 'silent' }));
    server = createHealthServer(() => worker.isReady(), worker.metrics.registry);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await worker?.stop();
  });

  async function scrape() {
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    await checkExposition(text, ACCEPTED_NAMES);
    return parseExposition(text);
  }

  it('count job runs per queue and outcome, with their durations, and show waiting jobs and their lag', async () => {
    await worker.boss.send(SESSION_CLEANUP_QUEUE, {});
    const deadline = Date.now() + 20_000;
    let samples = await scrape();
    const ran = () =>
      samples.find(
        (sample) =>
          sample.name === 'nestegg_job_runs_total' &&
          sample.labels.queue === SESSION_CLEANUP_QUEUE &&
          sample.labels.outcome === 'ok',
      );
    while (!ran() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      samples = await scrape();
    }
    expect(ran()?.value).toBeGreaterThanOrEqual(1);
    expect(
      samples.find(
        (sample) =>
          sample.name === 'nestegg_job_duration_seconds_count' && sample.labels.queue === SESSION_CLEANUP_QUEUE,
      )?.value,
    ).toBeGreaterThanOrEqual(1);

    // A job due a minute ago on a queue nobody works: counted as waiting, with its lag.
    await worker.boss.createQueue('metrics-probe');
    await worker.boss.send('metrics-probe', {}, { startAfter: new Date(Date.now() - 60_000) });
    samples = await scrape();
    expect(samples).toContainEqual(
      expect.objectContaining({
        name: 'nestegg_job_queue_jobs',
        labels: expect.objectContaining({ queue: 'metrics-probe', state: 'created' }),
        value: 1,
      }),
    );
    const lag = samples.find(
      (sample) => sample.name === 'nestegg_job_queue_lag_seconds' && sample.labels.queue === 'metrics-probe',
    );
    expect(lag?.value).toBeGreaterThan(50);
  }, 40_000);

  it('show open store notifications by status, and recurring postings', async () => {
    const handle = createDb(database.current.url, { max: 1 });
    try {
      await handle.db
        .insert(storeNotification)
        .values({ messageId: `metrics-${Date.now()}`, kind: 'TEST', status: 'FAILED', payload: {} });
    } finally {
      await handle.close();
    }
    const samples = await scrape();
    expect(samples).toContainEqual(
      expect.objectContaining({
        name: 'nestegg_store_inbox_notifications',
        labels: expect.objectContaining({ status: 'FAILED' }),
        value: 1,
      }),
    );
    expect(samples.some((sample) => sample.name === 'nestegg_recurring_postings_total')).toBe(true);
    expect(samples.some((sample) => sample.name === 'nodejs_eventloop_lag_p99_seconds')).toBe(true);
  });
});
