// `node infra/local/start.mjs --dev` end to end: the ready line comes once the api answers, the sample
// billing products are served in test mode, and SIGINT stops the apps (each once, drained), then the
// launcher, whose last line says so, with no error or stack printed after the signal.
// The first test runs on a fresh database on TEST_DATABASE_URL; the second lets the launcher start its
// embedded PostgreSQL in a temporary directory, to check that it is stopped only after both apps.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const adminUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const READY = /^\[nestegg\] ready: api on (http:\/\/localhost:\d+) /;
/** What must not appear once the launcher has been asked to stop. */
const TROUBLE = /terminating connection|Error|\bat |second (SIGTERM|SIGINT|signal)|"level":(50|60)/;

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** Starts the launcher with `env` on top of this process's environment minus the app variables. */
function launch(env) {
  const base = { ...process.env };
  for (const name of Object.keys(base)) {
    if (/^(DATABASE_URL|REDIS_URL|BILLING_|STORE_|PORT$|HOST$|WORKER_|NESTEGG_|EMBEDDED_)/.test(name)) {
      delete base[name];
    }
  }
  const child = spawn(process.execPath, ['infra/local/start.mjs', '--dev'], {
    cwd: root,
    env: { ...base, NODE_ENV: 'development', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = [];
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
    });
    stream.on('end', () => rest && lines.push(rest));
  }
  const exited = new Promise((done) => child.once('close', (code, signal) => done({ code, signal })));
  return { child, lines, exited };
}

async function waitForLine(launcher, pattern, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = launcher.lines.find((candidate) => pattern.test(candidate));
    if (line) return line;
    if (launcher.child.exitCode !== null) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`no line matching ${pattern}; output so far:\n${launcher.lines.join('\n')}`);
}

/** Stops a launcher a failed test left running (it then stops its apps and database). */
async function cleanUp(launcher) {
  if (!launcher || launcher.child.exitCode !== null || launcher.child.signalCode !== null) return;
  launcher.child.kill('SIGTERM');
  const timer = setTimeout(() => launcher.child.kill('SIGKILL'), 30_000);
  await launcher.exited;
  clearTimeout(timer);
}

/** Sends SIGINT to the launcher alone and checks the ordered, quiet stop. Returns the lines after it. */
async function interruptAndCheck(launcher, { embedded }) {
  const from = launcher.lines.length;
  launcher.child.kill('SIGINT');
  const { code, signal } = await launcher.exited;
  const after = launcher.lines.slice(from).filter((line) => line.trim() !== '');
  const context = `output after SIGINT:\n${after.join('\n')}`;
  expect({ code, signal }, context).toEqual({ code: 0, signal: null });
  expect(after.at(-1), context).toBe('[nestegg] stopped');
  expect(
    after.filter((line) => TROUBLE.test(line)),
    context,
  ).toEqual([]);
  const at = (text) => after.indexOf(`[nestegg] ${text}`);
  const stopped = after.length - 1;
  expect(at('api stopped'), context).toBeGreaterThanOrEqual(0);
  expect(at('billing worker stopped'), context).toBeGreaterThanOrEqual(0);
  expect(at('api stopped'), context).toBeLessThan(stopped);
  expect(at('billing worker stopped'), context).toBeLessThan(stopped);
  if (embedded) {
    expect(at('embedded PostgreSQL stopped'), context).toBeGreaterThan(at('api stopped'));
    expect(at('embedded PostgreSQL stopped'), context).toBeGreaterThan(at('billing worker stopped'));
    expect(at('embedded PostgreSQL stopped'), context).toBeLessThan(stopped);
  }
  // Each app received one signal: the api drained (close-with-grace logs its shutdown once; a second
  // signal would print "second SIGTERM"), the worker did not log its shutdown twice. The worker calls
  // process.exit right after stopping, which can drop that last line, so it is not required.
  expect(
    after.filter((line) => line.includes('"msg":"shutting down"')),
    context,
  ).toHaveLength(1);
  expect(after.filter((line) => line.includes('"msg":"stopping billing worker"')).length, context).toBeLessThanOrEqual(
    1,
  );
  return after;
}

async function json(response) {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

describe('npm run dev (start.mjs --dev) on a given DATABASE_URL', () => {
  const name = `nestegg_launcher_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  let launcher;

  beforeAll(async () => {
    await admin.unsafe(`create database ${name}`);
  });
  afterAll(async () => {
    await cleanUp(launcher);
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  test('prints the address once ready, serves sample products in test mode, stops in order on SIGINT', async () => {
    const databaseUrl = new URL(adminUrl);
    databaseUrl.pathname = `/${name}`;
    const [port, workerPort] = [await freePort(), await freePort()];
    launcher = launch({
      DATABASE_URL: databaseUrl.href,
      PORT: String(port),
      WORKER_HEALTH_PORT: String(workerPort),
    });

    const ready = await waitForLine(launcher, READY, 90_000);
    const address = READY.exec(ready)?.[1];
    expect(address).toBe(`http://localhost:${port}`);
    // The ready line is the launcher's last line of start-up, after the sample-products line.
    const launcherLines = launcher.lines.filter((line) => line.startsWith('[nestegg] '));
    expect(launcherLines.at(-1)).toBe(ready);
    expect(launcherLines).toContainEqual(expect.stringMatching(/BILLING_PRODUCTS is not set: sample products/));
    // No REDIS_URL: said once, by the api it concerns (decision F11).
    const redisNotices = launcher.lines.filter((line) => line.includes('REDIS_URL is not set'));
    expect(redisNotices).toEqual([expect.stringContaining('"name":"api"')]);

    expect((await fetch(`${address}/readyz`)).status).toBe(200);
    expect((await fetch(`http://localhost:${workerPort}/readyz`)).status).toBe(200);

    const email = `launcher-${randomBytes(4).toString('hex')}@example.com`;
    const password = `Launcher-${randomBytes(8).toString('hex')}!`;
    const post = (path, body, token) =>
      fetch(`${address}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    const signup = await post('/api/auth/signup', { email, password, displayName: 'Launcher test' });
    expect(signup.status, JSON.stringify(await json(signup.clone()))).toBe(201);
    const login = await post('/api/auth/login', { email, password });
    expect(login.status).toBe(200);
    const { token } = await login.json();

    const products = await fetch(`${address}/api/billing/products`, { headers: { authorization: `Bearer ${token}` } });
    expect(await json(products)).toEqual({
      products: [
        { id: 'premium_monthly', period: 'MONTHLY', price: 4900, currency: 'KRW' },
        { id: 'premium_yearly', period: 'YEARLY', price: 49000, currency: 'KRW' },
      ],
    });
    // Test mode: a `test-` token grants PREMIUM without a store.
    const verify = await post(
      '/api/billing/store/verify',
      { productId: 'premium_monthly', purchaseToken: `test-${randomBytes(8).toString('hex')}` },
      token,
    );
    const subscription = await json(verify);
    expect(verify.status, JSON.stringify(subscription)).toBe(200);
    expect(subscription).toMatchObject({ plan: 'PREMIUM' });

    await interruptAndCheck(launcher, { embedded: false });
  });
});

describe('npm run dev (start.mjs --dev) with its embedded PostgreSQL', () => {
  let launcher;
  let dataDir;

  afterAll(async () => {
    await cleanUp(launcher);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('stops the embedded PostgreSQL only after both apps have stopped', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'nestegg-launcher-'));
    chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as the `postgres` user, which must reach it
    const [port, workerPort, databasePort] = [await freePort(), await freePort(), await freePort()];
    launcher = launch({
      NESTEGG_DATA_DIR: dataDir,
      EMBEDDED_POSTGRES_PORT: String(databasePort),
      PORT: String(port),
      WORKER_HEALTH_PORT: String(workerPort),
    });

    await waitForLine(launcher, READY, 90_000);
    expect(launcher.lines).toContain(`[nestegg] embedded PostgreSQL listening on 127.0.0.1:${databasePort}`);
    expect((await fetch(`http://localhost:${port}/readyz`)).status).toBe(200);

    await interruptAndCheck(launcher, { embedded: true });
  });
});
