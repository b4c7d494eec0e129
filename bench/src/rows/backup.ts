import diagnostics from 'node:diagnostics_channel';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { healthBaseline, profileBaseline, restoreBaseline } from '../baseline/backup.js';
import {
  backupDataset,
  benchBackup,
  NEIGHBOUR_MEMBER_EMAIL,
  RESTORE_MEMBER_EMAIL,
  restoreNeighboursDataset,
} from '../datasets/backup.js';
import { BENCH_PASSWORD } from '../datasets/members.js';
import { CHILD_CONFIG_VARIABLE, type ChildConfig } from '../protocol.js';
import { NO_TARGETS } from './targets.js';
import type { BenchRow } from './types.js';

/**
 * Backup restore rows (issue 10, rule 15: "a 50,000-entry restore in ≤ 5 s on this machine, with other requests
 * still answered during it").
 *
 * - `backup.restore`: one restore at a time (`connections: 1`), so p50 is the time of one restore; a restore
 *   replaces the member's whole ledger, so each one deletes the previous one's entries. Against a bare route
 *   that parses, checks and plans the body on the main thread and then sends the same statements. What the
 *   harness cannot do for a request of seconds:
 *   - its SQL check fails although the request's statements are the baseline's, one for one: the api runs a
 *     session-invalidation drain once a second on the same client, and a restore lasts longer than that, so
 *     every counted request carries one or more `select "token_hash" from "session_cache_invalidation"`;
 *   - under autocannon a slice ended with its restore unanswered while the server finished it, and at 50,000
 *     entries restores piled up until none was answered in time; so the row runs `sequential`: one restore at
 *     a time, each awaited to its end, in every slice.
 * - `backup.restore-neighbours.*`: while a second api in the child process restores 50,000 entries in a loop
 *   (same process, event loop, database and Redis; its own pool, worker and clients, so the harness does not
 *   count its statements as the measured requests'), `/healthz` and the profile under the usual load: their
 *   p99 is how long other callers wait during a restore. The baseline's bare routes run beside the same loop.
 */

const RESTORE_PATH = '/api/account/restore';
/** apps/api/src/env.ts `RESTORE_MAX_BYTES` default: the restore route's own body limit. */
const RESTORE_MAX_BYTES = 64 * 1024 * 1024;
/** The size. */
const TARGET_ENTRIES = 50_000;

/**
 * The child makes each row's bare Fastify with the default 1 MiB body limit right after the row's request is
 * built, and the row has no say in it; a 50,000-entry backup is about 6 MB. The next Fastify made in this
 * process (that baseline) gets the api's limit on its restore route, through Fastify's own
 * `fastify.initialization` diagnostics channel.
 */
function raiseNextBaselineBodyLimit(): void {
  const channel = diagnostics.channel('fastify.initialization');
  const onInstance = (message: unknown) => {
    channel.unsubscribe(onInstance);
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (route) => {
      if (route.url === RESTORE_PATH) route.bodyLimit = RESTORE_MAX_BYTES;
    });
  };
  channel.subscribe(onInstance);
}

const restoreRequest: BenchRow['request'] = async (setup) => {
  const headers = await setup.bearer(RESTORE_MEMBER_EMAIL);
  raiseNextBaselineBodyLimit();
  return {
    method: 'POST',
    path: RESTORE_PATH,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(benchBackup(setup.size)),
  };
};

// ---------------------------------------------------------------------------------------------------
// Restores in the background
// ---------------------------------------------------------------------------------------------------

let background: Promise<void> | undefined;

const progress = (message: string) => process.stderr.write(`[bench]   ${message}\n`);

/** Restores `body` as the restoring member through `app`, one after another, until the child exits. */
async function restoreForever(app: FastifyInstance, token: string, entries: number, body: string): Promise<never> {
  const label = `background restore of ${entries.toLocaleString('en-US')} entries`;
  for (;;) {
    const started = performance.now();
    const response = await app.inject({
      method: 'POST',
      url: RESTORE_PATH,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: body,
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    if (response.statusCode === 200) progress(`${label}: ${seconds} s`);
    else {
      progress(`${label} answered ${response.statusCode} after ${seconds} s: ${response.body.slice(0, 200)}`);
      await sleep(1000);
    }
  }
}

/**
 * A second api in this (child) process, as the child starts the measured one, restoring a backup of `entries`
 * in a loop; started once per child, by the first neighbour row that builds its request.
 */
function restoresInBackground(entries: number): Promise<void> {
  background ??= (async () => {
    const config = JSON.parse(process.env[CHILD_CONFIG_VARIABLE] ?? '') as ChildConfig;
    const [{ buildApp }, { loadEnv }] = await Promise.all([import('@nestegg/api/app'), import('@nestegg/api/env')]);
    const app = await buildApp(
      loadEnv({
        NODE_ENV: 'production',
        LOG_LEVEL: config.logLevel,
        HOST: '127.0.0.1',
        PORT: '0',
        TRUST_PROXY: 'false',
        DATABASE_URL: config.databaseUrl,
        DATABASE_POOL_SIZE: String(config.poolSize),
        REDIS_URL: config.redisUrl,
        REDIS_KEY_PREFIX: config.redisKeyPrefix,
        OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
      }),
    );
    const login = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: RESTORE_MEMBER_EMAIL, password: BENCH_PASSWORD }),
    });
    if (login.statusCode !== 200) throw new Error(`background login failed: ${login.statusCode} ${login.body}`);
    void restoreForever(app, login.json().token, entries, JSON.stringify(benchBackup(entries)));
  })();
  return background;
}

/** A row's request, made once the restores in the background have started. */
const duringRestores =
  (request: BenchRow['request']): BenchRow['request'] =>
  async (setup) => {
    await restoresInBackground(setup.size);
    return request(setup);
  };

const neighbourRow = (row: Pick<BenchRow, 'key' | 'name' | 'request' | 'baseline'>): BenchRow => ({
  ...row,
  dataset: restoreNeighboursDataset,
  sizes: { quick: [TARGET_ENTRIES], full: [TARGET_ENTRIES] },
  redis: 'up',
  targets: NO_TARGETS,
  request: duringRestores(row.request),
});

export const backupRows: BenchRow[] = [
  {
    key: 'backup.restore',
    name: `POST ${RESTORE_PATH} one at a time, p50 = one restore (target ≤ 5 s at 50,000 entries; SQL ✗: the api's 1/s session drain runs during it)`,
    dataset: backupDataset,
    sizes: { quick: [10_000], full: [10_000, TARGET_ENTRIES] },
    redis: 'up',
    targets: NO_TARGETS,
    connections: 1,
    sequential: true,
    request: restoreRequest,
    baseline: restoreBaseline,
  },
  neighbourRow({
    key: 'backup.restore-neighbours.healthz',
    name: 'GET /healthz while 50,000-entry restores run in the process',
    request: async () => ({ method: 'GET', path: '/healthz' }),
    baseline: healthBaseline,
  }),
  neighbourRow({
    key: 'backup.restore-neighbours.profile',
    name: 'GET /api/auth/profile while 50,000-entry restores run in the process',
    request: async (setup) => ({
      method: 'GET',
      path: '/api/auth/profile',
      headers: await setup.bearer(NEIGHBOUR_MEMBER_EMAIL),
    }),
    baseline: profileBaseline,
  }),
];
