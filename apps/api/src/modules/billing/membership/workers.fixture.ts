/** Test support: billing workers in-process, on the same database as a test api, talking to the fake store. */
import { loadEnv } from '@nestegg/billing-worker/env';
import { startWorker, type Worker, type WorkerOptions } from '@nestegg/billing-worker/worker';
import type { FakeGooglePlay } from '@nestegg/membership/testing';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { expect } from 'vitest';
import { eventually, inboxRow, PRODUCTS } from './billing.fixture.js';

const silent = pino({ level: process.env.WORKER_TEST_LOG ?? 'silent' });

export function startTestWorker(
  app: FastifyInstance,
  store: FakeGooglePlay,
  overrides: Record<string, string> = {},
  options: WorkerOptions = {},
): Promise<Worker> {
  const env = loadEnv({
    DATABASE_URL: app.env.DATABASE_URL,
    DATABASE_POOL_SIZE: '3',
    JOBS_POOL_SIZE: '3',
    BILLING_PRODUCTS: PRODUCTS,
    ...store.env(),
    ...overrides,
  });
  return startWorker(env, silent, options);
}

/** Posts a notification as the store's push does (signed token), expects 204; returns its message id. */
export async function pushNotification(app: FastifyInstance, store: FakeGooglePlay, notification: object) {
  const envelope = store.envelope(notification);
  const response = await app.inject({
    method: 'POST',
    url: '/api/billing/store/rtdn',
    headers: { authorization: `Bearer ${await store.pushToken()}` },
    payload: envelope,
  });
  expect(response.statusCode).toBe(204);
  return envelope.message.messageId;
}

/** Waits until the worker has processed the notification (or parked it); returns the inbox row. */
export function processed(app: FastifyInstance, messageId: string) {
  return eventually(async () => {
    const row = await inboxRow(app, messageId);
    return row && !['RECEIVED', 'DISPATCHED'].includes(row.status) ? row : undefined;
  }, 15_000);
}
