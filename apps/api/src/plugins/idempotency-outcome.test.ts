import { IdempotencyHeadersSchema, meta, routerOptions, withCommonProblems } from '@nestegg/contract';
import { accountEntry, idempotencyKey, pointHistory, post } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { initContract } from '@ts-rest/core';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, vi } from 'vitest';
import { z } from 'zod';
import { registerContractRouter } from '../lib/contract-router.js';
import { IdempotencyStore } from '../lib/idempotency-store.js';
import { MonthCompleteBonus } from '../modules/ledger/entries/month-complete.js';
import { createMemberWithSession, type TestMember } from '../test/app.js';
import { apiTest } from '../test/fixtures.js';

/**
 * Issue 17, item 4: the outcome of a request with an `Idempotency-Key` is knowable once its writes commit.
 * A retry after an ambiguous failure replays the answer or reports the conflict; it never runs the handler
 * again, however long after the first request it comes.
 */

/** The app's clock, moved forward by the tests to get past the window after which a claim counts as abandoned. */
const clock: Clock & { offsetMs: number } = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };
const PAST_THE_TAKEOVER_WINDOW_MS = 61_000;

/** What postgres.js rejects with when the server closes the connection under a query. */
function connectionClosed(): Error {
  return Object.assign(new Error('write CONNECTION_CLOSED 127.0.0.1:5432'), { code: 'CONNECTION_CLOSED' });
}

/** The first call of `complete` dies as if the connection was killed after the handler's transaction committed. */
function killTheConnectionBeforeCompletion() {
  return vi.spyOn(IdempotencyStore.prototype, 'complete').mockRejectedValueOnce(connectionClosed());
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const c = initContract();
const ProbeBody = z.object({
  memo: z.string(),
  /** Write in an explicit transaction (else one auto-commit insert). */
  inTransaction: z.boolean().optional(),
  failBeforeWrite: z.boolean().optional(),
  failAfterWrite: z.boolean().optional(),
  /** Hold the transaction open after its insert until the test's gate opens. */
  hold: z.boolean().optional(),
});
const probe = withCommonProblems(
  c.router(
    {
      create: {
        method: 'POST',
        path: '/api/probe/entries',
        headers: IdempotencyHeadersSchema,
        body: ProbeBody,
        responses: { 201: z.object({ id: z.number() }) },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);

const test = apiTest({}, { clock });

describe('Idempotency-Key: the outcome of a request is knowable once its writes commit', () => {
  let member: TestMember;
  /** Holds the next slow transaction open (after its insert, before its commit) until released. */
  let gate: { reached: Deferred; release: Deferred } | null = null;

  test.beforeAll(async ({ app }) => {
    await app.register(async (scope) => {
      registerContractRouter(scope, probe, {
        create: async ({ body, request }) => {
          if (body.failBeforeWrite) throw new Error('failure before any write');
          const values = {
            memberId: request.session!.memberId,
            type: 'EXPENSE' as const,
            amount: 1_000,
            entryDate: '2024-05-03',
            memo: body.memo,
          };
          const held = body.hold ? gate : null;
          const id = body.inTransaction
            ? await scope.db.transaction(async (tx) => {
                const [row] = await tx.insert(accountEntry).values(values).returning({ id: accountEntry.id });
                if (held) {
                  held.reached.resolve();
                  await held.release.promise;
                }
                return row!.id;
              })
            : (await scope.db.insert(accountEntry).values(values).returning({ id: accountEntry.id }))[0]!.id;
          if (body.failAfterWrite) throw new Error('failure after the write committed');
          return { status: 201, body: { id } };
        },
      });
    });
    member = await createMemberWithSession(app);
  });

  afterEach(() => {
    vi.restoreAllMocks();
    clock.offsetMs = 0;
  });

  const createEntry = (app: FastifyInstance, key: string) =>
    app.inject({
      method: 'POST',
      url: '/api/account/entries',
      headers: { ...member.headers, 'idempotency-key': key },
      payload: { type: 'EXPENSE', amount: 4_500, date: '2024-05-03', memo: key },
    });

  const entriesWithMemo = async (app: FastifyInstance, memo: string) =>
    (
      await app.db
        .select({ id: accountEntry.id })
        .from(accountEntry)
        .where(and(eq(accountEntry.memberId, member.id), eq(accountEntry.memo, memo)))
    ).length;

  const probeEntry = (app: FastifyInstance, key: string, payload: z.infer<typeof ProbeBody>) =>
    app.inject({
      method: 'POST',
      url: '/api/probe/entries',
      headers: { ...member.headers, 'idempotency-key': key },
      payload,
    });

  test('connection killed between the entry’s commit and the key’s completion: retries never record a second entry', async ({
    app,
  }) => {
    const key = 'killed-0000001';
    killTheConnectionBeforeCompletion();
    const first = await createEntry(app, key);
    expect(first.statusCode).toBeGreaterThanOrEqual(500);
    expect(first.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(first.body).not.toMatch(/CONNECTION_CLOSED|5432|idempotency_key|insert|update/i);
    expect(await entriesWithMemo(app, key)).toBe(1);

    // Right away: the first request may still be finishing, so the retry is told to wait.
    const soon = await createEntry(app, key);
    expect(soon.statusCode).toBe(409);
    expect(soon.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    expect(await entriesWithMemo(app, key)).toBe(1);

    // Past the takeover window: the writes committed, so the handler is not run again.
    clock.offsetMs = PAST_THE_TAKEOVER_WINDOW_MS;
    const later = await createEntry(app, key);
    expect(later.statusCode).toBe(409);
    expect(later.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(later.json()).toMatchObject({ code: 'IDEMPOTENCY_OUTCOME_UNKNOWN' });
    expect(later.headers['retry-after']).toBeUndefined();
    expect(await entriesWithMemo(app, key)).toBe(1);
  });

  test('the same for a board post: one post and one writing award, however often it is retried', async ({ app }) => {
    const key = 'killed-post-0001';
    const write = () =>
      app.inject({
        method: 'POST',
        url: '/api/board/posts',
        headers: { ...member.headers, 'idempotency-key': key },
        payload: { category: 'community', title: 'Hello', body: key },
      });
    const count = async () => ({
      posts: (
        await app.db
          .select()
          .from(post)
          .where(and(eq(post.memberId, member.id), eq(post.body, key)))
      ).length,
      awards: (await app.db.select().from(pointHistory).where(eq(pointHistory.memberId, member.id))).length,
    });
    killTheConnectionBeforeCompletion();
    expect((await write()).statusCode).toBeGreaterThanOrEqual(500);
    const after = await count();
    expect(after.posts).toBe(1);
    clock.offsetMs = PAST_THE_TAKEOVER_WINDOW_MS;
    expect((await write()).json()).toMatchObject({ status: 409, code: 'IDEMPOTENCY_OUTCOME_UNKNOWN' });
    expect(await count()).toEqual(after);
  });

  test('parallel retries after a lost completion, past the takeover window, record nothing more', async ({ app }) => {
    const key = 'killed-parallel-01';
    killTheConnectionBeforeCompletion();
    expect((await createEntry(app, key)).statusCode).toBeGreaterThanOrEqual(500);
    clock.offsetMs = PAST_THE_TAKEOVER_WINDOW_MS;
    const retries = await Promise.all(Array.from({ length: 8 }, () => createEntry(app, key)));
    for (const retry of retries)
      expect(retry.json()).toMatchObject({ status: 409, code: 'IDEMPOTENCY_OUTCOME_UNKNOWN' });
    expect(await entriesWithMemo(app, key)).toBe(1);
  });

  test('parallel first requests with one key record one entry, and later retries replay it', async ({ app }) => {
    const key = 'parallel-first-01';
    const answers = await Promise.all(Array.from({ length: 8 }, () => createEntry(app, key)));
    expect(await entriesWithMemo(app, key)).toBe(1);
    const created = answers.filter((answer) => answer.statusCode === 201 && !answer.headers['idempotent-replayed']);
    expect(created).toHaveLength(1);
    for (const answer of answers.filter((a) => a !== created[0])) {
      if (answer.statusCode === 201) expect(answer.json()).toEqual(created[0]!.json());
      else expect(answer.json()).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_IN_USE' });
    }
    clock.offsetMs = PAST_THE_TAKEOVER_WINDOW_MS;
    const replay = await createEntry(app, key);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(created[0]!.json());
    expect(await entriesWithMemo(app, key)).toBe(1);
  });

  test('a server error after the entry committed does not release the key', async ({ app }) => {
    const key = 'after-commit-01';
    vi.spyOn(MonthCompleteBonus.prototype, 'afterSave').mockRejectedValueOnce(new Error('bonus failed'));
    const first = await createEntry(app, key);
    expect(first.statusCode).toBe(500);
    expect(await entriesWithMemo(app, key)).toBe(1);
    // The request is over and its entry committed: retries learn it at once, and never record again.
    const retry = await createEntry(app, key);
    expect(retry.json()).toMatchObject({ status: 409, code: 'IDEMPOTENCY_OUTCOME_UNKNOWN' });
    clock.offsetMs = PAST_THE_TAKEOVER_WINDOW_MS;
    expect((await createEntry(app, key)).json()).toMatchObject({ status: 409, code: 'IDEMPOTENCY_OUTCOME_UNKNOWN' });
    expect(await entriesWithMemo(app, key)).toBe(1);
  });

  test('an auto-commit write outside a transaction is tied to the key as well', async ({ app }) => {
    const key = 'auto-commit-0001';
    const body = { memo: key, failAfterWrite: true };
    expect((await probeEntry(app, key, body)).statusCode).toBe(500);
    expect(await entriesWithMemo(app, key)).toBe(1);
    const retry = await probeEntry(app, key, body);
    expect(retry.json()).toMatchObject({ status: 409, code: 'IDEMPOTENCY_OUTCOME_UNKNOWN' });
    clock.offsetMs = PAST_THE_TAKEOVER_WINDOW_MS;
    const later = await probeEntry(app, key, body);
    expect(later.json()).toMatchObject({ status: 409, code: 'IDEMPOTENCY_OUTCOME_UNKNOWN' });
    expect(await entriesWithMemo(app, key)).toBe(1);
  });

  test('a server error before any write still releases the key, so the retry runs', async ({ app }) => {
    const key = 'no-write-00001';
    expect((await probeEntry(app, key, { memo: key, failBeforeWrite: true })).statusCode).toBe(500);
    // The key was released: the same key with another body is a new request, not 422.
    const retry = await probeEntry(app, key, { memo: key });
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await entriesWithMemo(app, key)).toBe(1);
  });

  test('a request that outlives the takeover window cannot commit once a retry took its key over', async ({ app }) => {
    const key = 'zombie-key-0001';
    const body = { memo: key, inTransaction: true, hold: true };
    gate = { reached: deferred(), release: deferred() };
    const release = gate.release;
    const zombie = probeEntry(app, key, body);
    await gate.reached.promise;
    gate = null;
    clock.offsetMs = PAST_THE_TAKEOVER_WINDOW_MS;
    // The retry takes the abandoned key over; its insert then waits for the zombie's transaction (the
    // member's change counter is locked until commit).
    const retry = probeEntry(app, key, body);
    await vi.waitFor(
      async () => {
        const [row] = await app.db
          .select({ createdAt: idempotencyKey.createdAt })
          .from(idempotencyKey)
          .where(and(eq(idempotencyKey.memberId, member.id), eq(idempotencyKey.key, key)));
        expect(row!.createdAt.getTime()).toBeGreaterThan(Date.now() + PAST_THE_TAKEOVER_WINDOW_MS / 2);
      },
      { timeout: 5_000, interval: 20 },
    );
    release.resolve();
    const [zombieAnswer, retryAnswer] = await Promise.all([zombie, retry]);
    expect(retryAnswer.statusCode).toBe(201);
    expect(zombieAnswer.json()).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_IN_USE' });
    expect(await entriesWithMemo(app, key)).toBe(1);
    const replay = await probeEntry(app, key, body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(retryAnswer.json());
  });
});
