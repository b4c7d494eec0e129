/**
 * Issue 12 rule 11 (and issue 39 for the App Store), across replicas: two api instances and two billing workers
 * on one database (and one Redis prefix), talking to the fake stores. Scheduled jobs run once per occurrence whichever worker takes
 * them, a store notification is applied once however often and through whichever instance it arrives,
 * and concurrent verifies of one purchase token through both instances apply it once.
 */
import { loadEnv as loadWorkerEnv } from '@nestegg/billing-worker/env';
import { startWorker, type Worker } from '@nestegg/billing-worker/worker';
import { iapPurchase, member, storeNotification } from '@nestegg/db';
import { FakeAppStore, FakeGooglePlay } from '@nestegg/membership/testing';
import { createDatabaseFromTemplate, createTestRedis, type TestDatabase, type TestRedis } from '@nestegg/testing';
import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../../app.js';
import { loadEnv } from '../../../env.js';
import { createMemberWithSession, type TestMember, testEnvironment } from '../../../test/app.js';
import { type ApiClient, contractClient } from '../../../test/client.js';
import {
  APPLE_MONTHLY,
  bothStoresEnvironment,
  eventually,
  memberRow,
  PRODUCTS,
  purchaseRows,
  waitForSessionPlan,
} from './billing.fixture.js';

const store = await FakeGooglePlay.start();
const apple = await FakeAppStore.start();
const DAY = 86_400_000;
const MONTHLY = 'premium_monthly';
const SEND_IT_QUEUE = '__pgboss__send-it';
const MANUAL_EXPIRY_RUNS = 6;

/** Every schedule of the worker (each variable of its environment named *_CRON), every minute: each comes due while the file runs, on both workers. */
const EVERY_MINUTE = Object.fromEntries(
  Object.keys(loadWorkerEnv({ DATABASE_URL: 'postgres://127.0.0.1/schedules', BILLING_PRODUCTS: PRODUCTS }))
    .filter((name) => name.endsWith('_CRON'))
    .map((name) => [name, '* * * * *']),
);

interface LogEntry {
  worker: string;
  level: number;
  msg: string;
  job?: string;
  [field: string]: unknown;
}

/** A worker's log, kept for the assertions: every `job done` line names the worker that ran the job. */
function recordingLogger(worker: string, into: LogEntry[]) {
  return pino(
    { level: 'info', base: { worker } },
    {
      write(line: string) {
        into.push(JSON.parse(line) as LogEntry);
        if (process.env.WORKER_TEST_LOG) process.stdout.write(line);
      },
    },
  );
}

type Caller = TestMember & { via: ApiClient[] };

describe('across replicas: two api instances, two billing workers, one database', () => {
  let database: TestDatabase;
  let redis: TestRedis;
  const apps: FastifyInstance[] = [];
  const workers: Worker[] = [];
  let workersStopped = false;
  const log: LogEntry[] = [];
  let workersStartedAt = 0;
  let lapsed: TestMember;

  const appA = () => apps[0]!;

  async function caller(plan: 'FREE' | 'PREMIUM' = 'FREE'): Promise<Caller> {
    const who = await createMemberWithSession(appA(), { plan });
    return { ...who, via: apps.map((app) => contractClient(app, { token: who.token })) };
  }

  async function stopWorkers() {
    if (workersStopped) return;
    workersStopped = true;
    await Promise.all(workers.map((worker) => worker.stop()));
  }

  beforeAll(async () => {
    database = await createDatabaseFromTemplate(inject('templateDatabase'));
    redis = await createTestRedis();
    const env = testEnvironment(
      { databaseUrl: database.url, redisUrl: redis.url, redisKeyPrefix: redis.keyPrefix },
      bothStoresEnvironment(store, apple),
    );
    apps.push(...(await Promise.all([buildApp(loadEnv(env)), buildApp(loadEnv(env))])));

    // A membership that ran out an hour ago, auto-renew off: the expiry job's to downgrade, once.
    lapsed = await createMemberWithSession(appA(), { plan: 'PREMIUM' });
    const lapsedAt = new Date(Date.now() - 3_600_000);
    const lapsedToken = store.subscribe(MONTHLY, {
      state: 'SUBSCRIPTION_STATE_CANCELED',
      autoRenew: false,
      acknowledged: true,
      expiryTime: lapsedAt,
    });
    await appA()
      .db.update(member)
      .set({ planExpiresAt: lapsedAt, planProduct: MONTHLY, planAutoRenew: false })
      .where(eq(member.id, lapsed.id));
    await appA().db.insert(iapPurchase).values({
      memberId: lapsed.id,
      productId: MONTHLY,
      purchaseToken: lapsedToken,
      state: 'CANCELED',
      autoRenew: false,
      expiresAt: lapsedAt,
      acknowledgedAt: lapsedAt,
    });

    const workerEnv = loadWorkerEnv({
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: '3',
      JOBS_POOL_SIZE: '3',
      BILLING_PRODUCTS: PRODUCTS,
      ...store.env(),
      ...apple.env(),
      ...EVERY_MINUTE,
    });
    workersStartedAt = Date.now();
    // A cron pass every second on each worker: many passes race for every occurrence.
    const boss = { cronMonitorIntervalSeconds: 1, cronWorkerIntervalSeconds: 1 };
    workers.push(
      ...(await Promise.all(
        ['worker-1', 'worker-2'].map((name) => startWorker(workerEnv, recordingLogger(name, log), { boss })),
      )),
    );
  });

  afterAll(async () => {
    await stopWorkers();
    await Promise.all(apps.map((app) => app.close()));
    await redis?.cleanup();
    await database?.drop();
    await store.close();
    await apple.close();
  });

  /** Posts a push as the store's push service does (signed token) through one api instance. */
  async function deliver(app: FastifyInstance, envelope: ReturnType<FakeGooglePlay['envelope']>) {
    const response = await app.inject({
      method: 'POST',
      url: '/api/billing/store/rtdn',
      headers: { authorization: `Bearer ${await store.pushToken()}` },
      payload: envelope,
    });
    return response.statusCode;
  }

  it('(b) a notification redelivered through both instances, and a burst for one token, are applied once each', async () => {
    const subscriber = await caller();
    const token = store.subscribe(MONTHLY, { expiryTime: new Date(Date.now() + 30 * DAY) });
    const [viaA] = subscriber.via;
    expect((await viaA!.billing.verify({ body: { productId: MONTHLY, purchaseToken: token } })).status).toBe(200);
    const getsBefore = store.calls.gets.filter((asked) => asked === token).length;

    // The store renews; its notifications arrive: one message the push service delivers three times (to
    // both instances), and a burst of four more for the same purchase, each also delivered to both.
    const renewedUntil = new Date(Date.now() + 60 * DAY);
    store.update(token, { expiryTime: renewedUntil });
    const redelivered = store.envelope(store.subscriptionNotification(2, token));
    const burst = [6, 1, 2, 8].map((type) => store.envelope(store.subscriptionNotification(type, token)));
    const messageIds = [redelivered, ...burst].map((envelope) => envelope.message.messageId);
    const [a, b] = apps;
    store.latencyMs = 50; // widens every window in which two workers could process one token at once
    try {
      const statuses = await Promise.all([
        deliver(a!, redelivered),
        deliver(b!, redelivered),
        deliver(a!, redelivered),
        ...burst.flatMap((envelope) => [deliver(b!, envelope), deliver(a!, envelope)]),
      ]);
      expect(statuses).toEqual(Array(11).fill(204));

      // Both workers at work until every message is settled and its job done.
      const { rows, jobs } = await eventually(async () => {
        const rows = await appA()
          .db.select()
          .from(storeNotification)
          .where(inArray(storeNotification.messageId, messageIds));
        if (rows.length < messageIds.length || rows.some((row) => ['RECEIVED', 'DISPATCHED'].includes(row.status))) {
          return undefined;
        }
        const jobs = await appA().sql<{ notificationId: string; state: string; retries: number; group: string }[]>`
          select data->>'notificationId' as "notificationId", state, retry_count as retries, group_id as group
            from pgboss.job
           where name = 'store-notification'
             and data->>'notificationId' = any(${rows.map((row) => String(row.id))}::text[])`;
        return jobs.some((job) => job.state !== 'completed') ? undefined : { rows, jobs };
      }, 20_000);

      // The inbox: one row per message id, for this token only those, each processed once and applied.
      const inbox = await appA().db.select().from(storeNotification).where(eq(storeNotification.purchaseToken, token));
      expect(inbox.map((row) => row.messageId).sort()).toEqual([...messageIds].sort());
      for (const row of rows) {
        expect(row, row.messageId).toMatchObject({ status: 'PROCESSED', outcome: 'APPLIED', attempts: 1, error: null });
      }
      // The job engine: one job per notification (dispatched once, whichever worker woke), each run once.
      expect(jobs.map((job) => job.notificationId).sort()).toEqual(rows.map((row) => String(row.id)).sort());
      expect(jobs.every((job) => job.retries === 0 && job.group === token)).toBe(true);
    } finally {
      store.latencyMs = 0;
    }

    // The store was asked once per message (a second application would ask again), one at a time, and
    // the purchase acknowledged once (by the verify).
    expect(store.calls.gets.filter((asked) => asked === token).length - getsBefore).toBe(messageIds.length);
    expect(store.calls.maxConcurrentGetsPerToken).toBe(1);
    expect(store.calls.acknowledgements.filter((acked) => acked === token)).toHaveLength(1);
    expect(await purchaseRows(appA(), token)).toHaveLength(1);
    expect(await memberRow(appA(), subscriber.id)).toMatchObject({
      plan: 'PREMIUM',
      planExpiresAt: renewedUntil,
      planAutoRenew: true,
    });
    for (const app of apps) await waitForSessionPlan(app, subscriber, 'PREMIUM');
  });

  it('(b, App Store) a notification redelivered through both instances, and a burst for one subscription, are applied once each', async () => {
    const subscriber = await caller();
    const [viaA] = subscriber.via;
    const token = (await viaA!.billing.appStoreAccountToken()).body as { appAccountToken: string };
    const id = apple.subscribe(APPLE_MONTHLY, {
      appAccountToken: token.appAccountToken,
      expiresDate: new Date(Date.now() + 30 * DAY),
    });
    expect((await viaA!.billing.appStoreVerify({ body: { transactionId: id } })).status).toBe(200);
    const statusesBefore = apple.calls.statuses.filter((asked) => asked === id).length;

    // Apple renews; its notifications arrive: one Apple sends three times (to both instances), and a burst of
    // four more about the same subscription, each also delivered to both.
    const renewedUntil = new Date(Date.now() + 60 * DAY);
    apple.renew(id, renewedUntil);
    const redelivered = await apple.notification('DID_RENEW', id);
    const burst = await Promise.all(
      [
        ['DID_CHANGE_RENEWAL_STATUS', 'AUTO_RENEW_ENABLED'],
        ['DID_RENEW', undefined],
        ['RENEWAL_EXTENDED', undefined],
        ['PRICE_INCREASE', 'ACCEPTED'],
      ].map(([type, subtype]) => apple.notification(type!, id, subtype)),
    );
    const uuids = [redelivered, ...burst].map((sent) => sent.notificationUUID);
    const [a, b] = apps;
    const deliver = async (app: FastifyInstance, signedPayload: string) =>
      (await contractClient(app, {}).billing.appStoreNotification({ body: { signedPayload } })).status;
    apple.latencyMs = 50; // widens every window in which two workers could apply one subscription at once
    try {
      const statuses = await Promise.all([
        deliver(a!, redelivered.signedPayload),
        deliver(b!, redelivered.signedPayload),
        deliver(a!, redelivered.signedPayload),
        ...burst.flatMap((sent) => [deliver(b!, sent.signedPayload), deliver(a!, sent.signedPayload)]),
      ]);
      expect(statuses).toEqual(Array(11).fill(200));

      const { rows, jobs } = await eventually(async () => {
        const rows = await appA()
          .db.select()
          .from(storeNotification)
          .where(and(eq(storeNotification.store, 'APP_STORE'), inArray(storeNotification.messageId, uuids)));
        if (rows.length < uuids.length || rows.some((row) => ['RECEIVED', 'DISPATCHED'].includes(row.status))) {
          return undefined;
        }
        const jobs = await appA().sql<{ notificationId: string; state: string; retries: number; group: string }[]>`
          select data->>'notificationId' as "notificationId", state, retry_count as retries, group_id as group
            from pgboss.job
           where name = 'store-notification'
             and data->>'notificationId' = any(${rows.map((row) => String(row.id))}::text[])`;
        return jobs.some((job) => job.state !== 'completed') ? undefined : { rows, jobs };
      }, 20_000);

      // One inbox row per notificationUUID, each processed once and applied; one job each, run once.
      expect(rows.map((row) => row.messageId).sort()).toEqual([...uuids].sort());
      for (const row of rows) {
        expect(row, row.messageId).toMatchObject({ status: 'PROCESSED', outcome: 'APPLIED', attempts: 1, error: null });
      }
      expect(jobs.map((job) => job.notificationId).sort()).toEqual(rows.map((row) => String(row.id)).sort());
      expect(jobs.every((job) => job.retries === 0 && job.group === `appstore:${id}`)).toBe(true);
    } finally {
      apple.latencyMs = 0;
    }

    // Apple was asked once per notification (a second application would ask again), one at a time.
    expect(apple.calls.statuses.filter((asked) => asked === id).length - statusesBefore).toBe(uuids.length);
    expect(apple.calls.maxConcurrentStatusesPerSubscription).toBe(1);
    expect(await memberRow(appA(), subscriber.id)).toMatchObject({ plan: 'PREMIUM', planExpiresAt: renewedUntil });
    for (const app of apps) await waitForSessionPlan(app, subscriber, 'PREMIUM');
  });

  it('(c) concurrent verifies of one token through both instances apply once: one row, one owner, 409 for the other', async () => {
    const first = await caller();
    const second = await caller();
    const token = store.subscribe(MONTHLY, { expiryTime: new Date(Date.now() + 30 * DAY) });
    const body = { productId: MONTHLY, purchaseToken: token };
    store.latencyMs = 50;
    let answers: { status: number; body: unknown }[];
    try {
      // Interleaved: each member through each instance, twice.
      answers = await Promise.all(
        [0, 1, 2, 3].flatMap((round) => {
          const instance = round % 2;
          return [first.via[instance]!.billing.verify({ body }), second.via[instance]!.billing.verify({ body })];
        }),
      );
    } finally {
      store.latencyMs = 0;
    }
    const rows = await purchaseRows(appA(), token);
    expect(rows).toHaveLength(1);
    const [owner, stranger] = rows[0]!.memberId === first.id ? [first, second] : [second, first];
    const ownerIndex = owner === first ? 0 : 1;
    const ownerAnswers = answers.filter((_, index) => index % 2 === ownerIndex);
    const strangerAnswers = answers.filter((_, index) => index % 2 !== ownerIndex);
    expect(ownerAnswers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    for (const answer of ownerAnswers) expect(answer.body).toMatchObject({ plan: 'PREMIUM', state: 'ACTIVE' });
    expect(strangerAnswers.map((answer) => [answer.status, (answer.body as { code?: string }).code])).toEqual(
      Array(4).fill([409, 'PURCHASE_OWNED_ELSEWHERE']),
    );

    expect(store.calls.acknowledgements.filter((acked) => acked === token)).toHaveLength(1);
    expect(store.calls.maxConcurrentGetsPerToken).toBe(1);
    expect(await memberRow(appA(), owner.id)).toMatchObject({ plan: 'PREMIUM', planProduct: MONTHLY });
    expect(await memberRow(appA(), stranger.id)).toMatchObject({ plan: 'FREE', planExpiresAt: null });
    for (const app of apps) {
      await waitForSessionPlan(app, owner, 'PREMIUM');
      await waitForSessionPlan(app, stranger, 'FREE');
    }
  });

  it('(a) every scheduled job runs once per occurrence across both workers', async () => {
    // Both workers registered every schedule at start: one row per job all the same, not one per worker.
    const queues = (await workers[0]!.boss.getSchedules()).map((schedule) => schedule.name).sort();
    expect(queues).toHaveLength(Object.keys(EVERY_MINUTE).length);
    expect(new Set(queues).size).toBe(queues.length);

    // Each schedule has come due and run; the lapsed membership is FREE.
    await eventually(async () => {
      const done = await appA().sql<{ name: string }[]>`
        select distinct name from pgboss.job where name = any(${queues}::text[]) and state = 'completed'`;
      return done.length === queues.length ? true : undefined;
    }, 20_000);
    for (const app of apps) await waitForSessionPlan(app, lapsed, 'FREE');

    // Manual triggers of the expiry queue, sent through both workers' engines, which both poll it. Each run
    // is made slow (an auto-renewing member whose purchase the store answers slowly and with a 503 is
    // re-asked, and deferred, on every run), so the runs spread over both workers; each still runs once.
    const deferred = await createMemberWithSession(appA(), { plan: 'PREMIUM' });
    const deferredToken = store.subscribe(MONTHLY, { acknowledged: true });
    const expiredAt = new Date(Date.now() - 60_000);
    await appA()
      .db.update(member)
      .set({ planExpiresAt: expiredAt, planProduct: MONTHLY, planAutoRenew: true })
      .where(eq(member.id, deferred.id));
    await appA().db.insert(iapPurchase).values({
      memberId: deferred.id,
      productId: MONTHLY,
      purchaseToken: deferredToken,
      state: 'ACTIVE',
      autoRenew: true,
      expiresAt: expiredAt,
      acknowledgedAt: expiredAt,
    });
    store.failingTokens.add(deferredToken);
    store.latencyMs = 200;
    try {
      const manual = await Promise.all(
        Array.from({ length: MANUAL_EXPIRY_RUNS }, (_, index) =>
          workers[index % 2]!.boss.send('membership-expiry', {}),
        ),
      );
      await eventually(async () => {
        const states = await appA().sql<{ state: string }[]>`
          select state from pgboss.job where name = 'membership-expiry' and id = any(${manual as string[]}::uuid[])`;
        return states.length === MANUAL_EXPIRY_RUNS && states.every((job) => job.state === 'completed')
          ? true
          : undefined;
      }, 20_000);
    } finally {
      store.latencyMs = 0;
      store.failingTokens.delete(deferredToken);
    }
    expect(await memberRow(appA(), deferred.id)).toMatchObject({ plan: 'PREMIUM', planAutoRenew: true });
    // Runs on both workers never asked the store about one purchase at the same time (the token's lock).
    expect(store.calls.maxConcurrentGetsPerToken).toBe(1);

    // More cron passes (one a second, claimed by either worker) found the latest occurrence still due and
    // sent nothing new; then both workers stop, so the job table and their logs compare without a job between.
    await eventually(async () => {
      const [row] = await appA().sql<{ passedAgain: boolean }[]>`
        select (select cron_on from pgboss.version)
               > (select max(created_on) from pgboss.job where name = ${SEND_IT_QUEUE}) + interval '2 seconds'
               as "passedAgain"`;
      return row?.passedAgain ? true : undefined;
    }, 15_000);
    await stopWorkers();
    const minutesSpanned = Math.floor(Date.now() / 60_000) - Math.floor(workersStartedAt / 60_000) + 1;

    const perQueue = await appA().sql<
      {
        name: string;
        sendIts: number;
        slots: number;
        forwarded: number;
        jobs: number;
        completed: number;
        irregular: number;
      }[]
    >`
      select q.name,
             (select count(*) from pgboss.job s
               where s.name = ${SEND_IT_QUEUE} and s.data->>'name' = q.name)::int as "sendIts",
             (select count(distinct s.data->>'slot') from pgboss.job s
               where s.name = ${SEND_IT_QUEUE} and s.data->>'name' = q.name)::int as slots,
             (select count(*) from pgboss.job s
               where s.name = ${SEND_IT_QUEUE} and s.data->>'name' = q.name and s.state = 'completed')::int as forwarded,
             (select count(*) from pgboss.job j where j.name = q.name)::int as jobs,
             (select count(*) from pgboss.job j where j.name = q.name and j.state = 'completed')::int as completed,
             (select count(*) from pgboss.job j
               where j.name = q.name and (j.state not in ('created', 'completed') or j.retry_count > 0))::int as irregular
        from unnest(${queues}::text[]) as q(name)
       order by q.name`;
    const jobsDone = log.filter((entry) => entry.msg === 'job done');
    for (const queue of perQueue) {
      const ranBy = jobsDone.filter((entry) => entry.job === queue.name);
      // One job per occurrence (minute slot), however many passes of both workers saw it due…
      expect(queue.sendIts, queue.name).toBe(queue.slots);
      expect(queue.jobs, queue.name).toBe(
        queue.forwarded + (queue.name === 'membership-expiry' ? MANUAL_EXPIRY_RUNS : 0),
      );
      expect(queue.forwarded, queue.name).toBeGreaterThanOrEqual(1);
      expect(queue.sendIts, queue.name).toBeLessThanOrEqual(minutesSpanned);
      // …and each job run by one worker, once: as many runs in both workers' logs as completed jobs.
      expect(queue.irregular, queue.name).toBe(0);
      expect(ranBy.length, queue.name).toBe(queue.completed);
    }

    // The effects a second run of one occurrence would repeat: the store's voided list is read once per
    // run of its job, and the lapsed member was downgraded once (by whichever worker ran it).
    const voided = perQueue.find((queue) => queue.name === 'store-voided-purchases')!;
    expect(store.calls.voidedLists).toBe(voided.completed);
    const expiryRuns = jobsDone.filter((entry) => entry.job === 'membership-expiry');
    expect(expiryRuns.reduce((sum, entry) => sum + Number(entry.downgraded), 0)).toBe(1);
    expect(await memberRow(appA(), lapsed.id)).toMatchObject({
      plan: 'FREE',
      planExpiresAt: null,
      planProduct: null,
      planAutoRenew: false,
    });
    expect(log.filter((entry) => entry.level >= 50)).toEqual([]);
  });
});
