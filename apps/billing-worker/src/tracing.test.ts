/**
 * Decision O14: with tracing on, each job runs in a span of its own (`process <queue>`, the queue and the
 * job id as attributes), its statements as children, and a store notification's job is linked to the
 * request that stored it (the traceparent travels in the wake-up and the job's data).
 */
import { createDb, type DbHandle } from '@nestegg/db';
import { readDeveloperNotification, storeInInbox } from '@nestegg/membership';
import { FakeGooglePlay } from '@nestegg/membership/testing';
import { currentTraceparent, startTracing } from '@nestegg/telemetry';
import { startOtlpReceiver, useTestDatabase } from '@nestegg/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settledNotification, startBillingWorker } from './jobs/billing.fixture.js';
import { STORE_NOTIFICATION_QUEUE } from './jobs/store-notifications.js';
import type { Worker } from './worker.js';

const receiver = await startOtlpReceiver();
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
const tracing = await startTracing('nestegg-billing-worker');
if (!tracing) throw new Error('tracing did not start');
const store = await FakeGooglePlay.start();

describe('job spans', () => {
  const database = useTestDatabase();
  let handle: DbHandle;
  let worker: Worker;

  beforeAll(async () => {
    handle = createDb(database.current.url, { max: 2 });
    worker = await startBillingWorker(database.current.url, store);
  });
  afterAll(async () => {
    await worker?.stop();
    await handle?.close();
    await store.close();
    await tracing.shutdown();
    await receiver.close();
  });

  it('a store notification is processed in a job span linked to the request that stored it', async () => {
    const envelope = store.envelope(store.testNotification());
    // What the api does while handling the push (its request span is active there).
    const request = await tracing.tracer.startActiveSpan('POST /api/billing/store/rtdn', async (span) => {
      await storeInInbox(handle.db, {
        messageId: envelope.message.messageId,
        envelope,
        read: readDeveloperNotification(envelope.message.data, store.packageName),
        now: new Date(),
        traceparent: currentTraceparent(),
      });
      span.end();
      return span.spanContext();
    });
    expect(await settledNotification(handle.db, envelope.message.messageId)).toMatchObject({ status: 'PROCESSED' });

    let job: ReturnType<typeof receiver.spans>[number] | undefined;
    for (let attempt = 0; attempt < 50 && !job; attempt++) {
      await tracing.flush();
      job = receiver
        .spans()
        .find((span) => span.name === `process ${STORE_NOTIFICATION_QUEUE}` && span.links.length > 0);
      if (!job) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(job).toBeDefined();
    expect(job!.kind).toBe(5);
    expect(job!.attributes).toMatchObject({
      'messaging.destination.name': STORE_NOTIFICATION_QUEUE,
      'messaging.message.id': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(job!.links).toEqual([{ traceId: request.traceId, spanId: request.spanId }]);
    expect(job!.traceId).not.toBe(request.traceId);
    expect(job!.serviceName).toBe('nestegg-billing-worker');

    const statements = receiver
      .spans()
      .filter((span) => span.parentSpanId === job!.spanId && span.attributes['db.system.name'] === 'postgresql');
    expect(statements.map((span) => span.attributes['db.operation.name'])).toContain('SELECT');
  });
});
