import { storeNotification } from '@nestegg/db';
import { STORE_INBOX_CHANNEL } from '@nestegg/membership';
import { FakeGooglePlay } from '@nestegg/membership/testing';
import { count } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect } from 'vitest';
import { apiTest } from '../../../test/fixtures.js';
import { inboxRow, storeEnvironment } from './billing.fixture.js';

const store = await FakeGooglePlay.start();
afterAll(() => store.close());

const test = apiTest(storeEnvironment(store));
const PATH = '/api/billing/store/rtdn';

async function push(app: FastifyInstance, body: unknown, authorization: string | undefined) {
  return app.inject({
    method: 'POST',
    url: PATH,
    headers: authorization ? { authorization } : {},
    payload: body as object,
  });
}

describe('POST /api/billing/store/rtdn', () => {
  test('stores an authenticated push once per message id, answers 204 fast, and wakes the worker', async ({ app }) => {
    const token = store.subscribe('premium_monthly');
    const envelope = store.envelope(store.subscriptionNotification(4, token));
    const woken: string[] = [];
    const listening = await app.sql.listen(STORE_INBOX_CHANNEL, (payload) => woken.push(payload));
    try {
      const bearer = `Bearer ${await store.pushToken()}`;
      await push(app, store.envelope(store.testNotification()), bearer); // warms the key set cache
      const started = performance.now();
      const first = await push(app, envelope, bearer);
      const elapsed = performance.now() - started;
      const again = await push(app, envelope, bearer);
      expect(first.statusCode).toBe(204);
      expect(again.statusCode).toBe(204);
      expect(elapsed).toBeLessThan(100);
      const row = await inboxRow(app, envelope.message.messageId);
      expect(row).toMatchObject({
        kind: 'SUBSCRIPTION',
        notificationType: 4,
        purchaseToken: token,
        status: 'RECEIVED',
        error: null,
        processedAt: null,
      });
      expect(row!.payload).toMatchObject({ message: { messageId: envelope.message.messageId } });
      const [{ total } = { total: 0 }] = await app.db.select({ total: count() }).from(storeNotification);
      expect(total).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(woken).toContain(String(row!.id));
      expect(woken.filter((id) => id === String(row!.id))).toHaveLength(1);
    } finally {
      await listening.unlisten();
    }
  });

  test('401 without a valid push token, before the body is read; nothing stored', async ({ app }) => {
    const envelope = store.envelope(store.testNotification());
    const attempts = [
      undefined,
      'Bearer not-a-jwt',
      `Bearer ${await store.pushToken({ audience: 'https://elsewhere.test/push' })}`,
      `Bearer ${await store.pushToken({ email: 'intruder@evil.test' })}`,
      `Bearer ${await store.pushToken({ foreignKey: true })}`,
      `Bearer ${await store.pushToken({ expiresInSeconds: -600 })}`,
    ];
    for (const authorization of attempts) {
      const response = await push(app, envelope, authorization);
      expect(response.statusCode, String(authorization)).toBe(401);
      expect(response.json()).toMatchObject({ code: 'INVALID_PUSH_TOKEN' });
    }
    const garbage = await push(app, '{"not":', undefined);
    expect(garbage.statusCode).toBe(401);
    expect(await inboxRow(app, envelope.message.messageId)).toBeUndefined();
  });

  test('a malformed inner payload or another app is stored with its error and still answered 2xx', async ({ app }) => {
    const bearer = `Bearer ${await store.pushToken()}`;
    const malformed = store.envelope('this is not json');
    const empty = store.envelope({ version: '1.0', packageName: store.packageName, eventTimeMillis: '1' });
    const foreign = store.envelope(store.subscriptionNotification(2, 'tok', 'com.someone.else'));
    for (const envelope of [malformed, empty, foreign]) {
      expect((await push(app, envelope, bearer)).statusCode).toBe(204);
    }
    expect(await inboxRow(app, malformed.message.messageId)).toMatchObject({
      status: 'REJECTED',
      kind: null,
      error: expect.stringMatching(/not a readable DeveloperNotification/),
    });
    expect(await inboxRow(app, empty.message.messageId)).toMatchObject({ status: 'REJECTED' });
    const foreignRow = await inboxRow(app, foreign.message.messageId);
    expect(foreignRow).toMatchObject({
      status: 'REJECTED',
      kind: 'SUBSCRIPTION',
      purchaseToken: 'tok',
      error: expect.stringMatching(/another package \(com\.someone\.else\)/),
    });
    expect(foreignRow!.processedAt).toBeInstanceOf(Date);
  });

  test('keeps the fields the push service adds that the contract does not model (C46)', async ({ app }) => {
    const envelope = store.envelope(store.testNotification());
    const grown = {
      ...envelope,
      deliveryAttempt: 3,
      message: { ...envelope.message, orderingKey: '', message_id: envelope.message.messageId },
    };
    expect((await push(app, grown, `Bearer ${await store.pushToken()}`)).statusCode).toBe(204);
    const row = await inboxRow(app, envelope.message.messageId);
    expect(row!.payload).toMatchObject({ deliveryAttempt: 3, message: { orderingKey: '' } });
  });

  test('a malformed envelope (not the push shape) is a 400', async ({ app }) => {
    const response = await push(app, { message: { data: '%%%' } }, `Bearer ${await store.pushToken()}`);
    expect(response.statusCode).toBe(400);
  });
});
