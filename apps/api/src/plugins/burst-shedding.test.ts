import { Worker } from 'node:worker_threads';
import { describe, expect } from 'vitest';
import { PASSWORD_QUEUE_FULL } from '../modules/members/auth/passwords.js';
import { createMemberWithSession } from '../test/app.js';
import { apiTest } from '../test/fixtures.js';

/**
 * Issue 17, item 5: a burst of sign-ups is not overload. Four parallel sign-ups used to make every route
 * answer 503 OVERLOADED within seconds on a 2-core machine (argon2 threads starve the event loop, the
 * event-loop utilisation passes 0.98, and the edge shed everything, reads included).
 *
 * This runs the api with the production defaults for shedding and for password hashing (the test app
 * turns the event-loop checks off; here they are put back) on a real listening socket, and drives it
 * from a worker thread (its own event loop, as a separate client would be): 8 sign-up loops and 2
 * readers for 20 seconds. Readers must never be shed. A sign-up may be refused with 503 only by the
 * password-hash queue (its own wait bound, PASSWORD_HASH_MAX_WAIT_MS), never by the edge.
 */

const DURATION_MS = 20_000;
const SIGNUP_LOOPS = 8;
const READER_LOOPS = 2;

/** Plain JavaScript, run in a worker thread: every answer is tallied by kind, status and problem detail. */
const clientScript = `
const { workerData, parentPort } = require('node:worker_threads');
const { base, token, durationMs, signupLoops, readerLoops } = workerData;
const until = Date.now() + durationMs;
const tally = { signup: {}, read: {} };
const slowest = { signup: 0, read: 0 };
/** The quickest answer of each kind and key: a shed sign-up must have waited out the hash queue's bound. */
const quickest = {};
let sequence = 0;
const run = Math.random().toString(36).slice(2, 8);

async function record(kind, response, started) {
  const text = await response.text();
  let key = String(response.status);
  if (response.status === 503) {
    try { key += ' ' + JSON.parse(text).detail; } catch { key += ' (not a problem body)'; }
  }
  tally[kind][key] = (tally[kind][key] ?? 0) + 1;
  const ms = Date.now() - started;
  slowest[kind] = Math.max(slowest[kind], ms);
  quickest[kind + ' ' + key] = Math.min(quickest[kind + ' ' + key] ?? Infinity, ms);
}

async function signupLoop(loop) {
  while (Date.now() < until) {
    sequence += 1;
    const n = sequence;
    const started = Date.now();
    try {
      const response = await fetch(base + '/api/auth/signup', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          // One address per sign-up: the per-address sign-up limit is not under test.
          'x-forwarded-for': '10.' + loop + '.' + ((n >> 8) & 255) + '.' + (n & 255),
        },
        body: JSON.stringify({ email: 'burst-' + run + '-' + n + '@nestegg.test', password: 'quiet meadow lantern 42', displayName: 'Burst' }),
      });
      await record('signup', response, started);
    } catch (error) {
      tally.signup['error ' + error.message] = (tally.signup['error ' + error.message] ?? 0) + 1;
    }
  }
}

const readPaths = ['/api/board/posts', '/api/board/tag-groups', '/api/auth/profile', '/api/auth/signup-enabled'];
async function readerLoop(loop) {
  let i = loop;
  while (Date.now() < until) {
    const started = Date.now();
    try {
      const response = await fetch(base + readPaths[i++ % readPaths.length], { headers: { authorization: 'Bearer ' + token } });
      await record('read', response, started);
    } catch (error) {
      tally.read['error ' + error.message] = (tally.read['error ' + error.message] ?? 0) + 1;
    }
  }
}

Promise.all([
  ...Array.from({ length: signupLoops }, (_, loop) => signupLoop(loop)),
  ...Array.from({ length: readerLoops }, (_, loop) => readerLoop(loop)),
]).then(() => parentPort.postMessage({ tally, slowest, quickest }));
`;

interface Outcome {
  tally: { signup: Record<string, number>; read: Record<string, number> };
  slowest: { signup: number; read: number };
  quickest: Record<string, number>;
}

function drive(base: string, token: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(clientScript, {
      eval: true,
      workerData: { base, token, durationMs: DURATION_MS, signupLoops: SIGNUP_LOOPS, readerLoops: READER_LOOPS },
    });
    worker.once('message', (outcome: Outcome) => {
      resolve(outcome);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const count = (tally: Record<string, number>, accept: (key: string) => boolean) =>
  Object.entries(tally)
    .filter(([key]) => accept(key))
    .reduce((sum, [, n]) => sum + n, 0);

const test = apiTest({
  // Back to the defaults (the test environment turns the event-loop checks off) and real addresses.
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: undefined,
  OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: undefined,
  PASSWORD_HASH_CONCURRENCY: undefined,
  PASSWORD_HASH_MAX_QUEUED: undefined,
  PASSWORD_HASH_MAX_WAIT_MS: undefined,
  TRUST_PROXY: 'true',
});

describe('a burst of sign-ups under the production shedding defaults', () => {
  test('sheds no reads, and sign-ups only past the hash queue’s own wait bound', { timeout: 45_000 }, async ({
    app,
  }) => {
    const reader = await createMemberWithSession(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };

    const { tally, slowest, quickest } = await drive(`http://127.0.0.1:${port}`, reader.token);
    const summary = JSON.stringify({ tally, slowest, quickest });

    // Readers: every answer a 200, none shed, and they kept going all along.
    expect(
      count(tally.read, (key) => key !== '200'),
      summary,
    ).toBe(0);
    expect(
      count(tally.read, (key) => key === '200'),
      summary,
    ).toBeGreaterThan(100);
    // Sign-ups: created, or refused by the hash queue (its own detail); never by the edge. With 8 loops at
    // most 7 hashes wait (the queue holds 32), so a refusal can only be a wait past PASSWORD_HASH_MAX_WAIT_MS.
    const hashQueueShed = `503 ${PASSWORD_QUEUE_FULL}`;
    expect(
      count(tally.signup, (key) => key !== '201' && key !== hashQueueShed),
      summary,
    ).toBe(0);
    if (tally.signup[hashQueueShed]) expect(quickest[`signup ${hashQueueShed}`], summary).toBeGreaterThanOrEqual(1990);
    expect(
      count(tally.signup, (key) => key === '201'),
      summary,
    ).toBeGreaterThan(SIGNUP_LOOPS * 4);
  });
});
