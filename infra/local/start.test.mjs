// `node infra/local/start.mjs --dev` end to end: the ready line comes once the api answers, the sample
// billing products are served in test mode, and SIGINT stops the apps (each once, drained), then the
// launcher, whose last line says so, with no error or stack printed after the signal.
// The first test runs on a fresh database on TEST_DATABASE_URL with stdout a pipe: every line is then a JSON
// event (decision F12), the apps listen on 127.0.0.1 only (I7) and REDIS_URL's absence is said once (F11).
// The second runs the launcher on a terminal (util-linux `script` gives it one; where there is no such
// `script`, as on macOS, with a pipe): every line is then a pino-pretty line. It lets the launcher start its
// embedded PostgreSQL in a temporary directory, to check that it is stopped only after both apps.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const adminUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const READY = /^ready: api on (http:\/\/localhost:\d+) /;
/** What must not appear once the launcher has been asked to stop. */
const TROUBLE = /terminating connection|Error|\bat |second (SIGTERM|SIGINT|signal)/;
const LEVELS = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** A pino-pretty line: `[12:34:56.789] INFO (name/pid): message`, then the event's other fields on the same line. */
const PRETTY_LINE = /^\[\d\d:\d\d:\d\d\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) \(([^/\s]+)\/(\d+)\): (.*)$/;

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

/** Whether util-linux `script`, whose options `launch` uses, is on the PATH. */
const hasUtilLinuxScript = () =>
  spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes('util-linux');

/** A shell word for `script -c`. */
const shellWord = (word) => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * Starts the launcher with `env` on top of this process's environment minus the app variables; with
 * `terminal`, under `script`, whose pseudo-terminal becomes the launcher's stdout and stderr.
 */
function launch(env, { terminal = false } = {}) {
  const base = { ...process.env };
  for (const name of Object.keys(base)) {
    if (/^(DATABASE_URL|REDIS_URL|BILLING_|STORE_|PORT$|HOST$|METRICS_|WORKER_|NESTEGG_|EMBEDDED_)/.test(name)) {
      delete base[name];
    }
  }
  const command = [process.execPath, 'infra/local/start.mjs', '--dev'];
  const [file, args] = terminal
    ? ['script', ['--quiet', '--flush', '--return', '--command', command.map(shellWord).join(' '), '/dev/null']]
    : [command[0], command.slice(1)];
  const child = spawn(file, args, {
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
      lines.push(...parts.map((line) => stripVTControlCharacters(line).replace(/\r$/, '')));
    });
    stream.on('end', () => rest && lines.push(stripVTControlCharacters(rest)));
  }
  const exited = new Promise((done) => child.once('close', (code, signal) => done({ code, signal })));
  return { child, lines, exited, terminal };
}

/**
 * A line read back as an event, its `level` as pino-pretty's label: a pino JSON line (`level`, `time`, `name`,
 * `msg`), or on a terminal a pino-pretty line. Undefined for any other line.
 */
function eventOf(line, { terminal }) {
  if (terminal) {
    const match = PRETTY_LINE.exec(line);
    return match ? { level: match[1], name: match[2], pid: Number(match[3]), msg: match[4] } : undefined;
  }
  try {
    const event = JSON.parse(line);
    const shaped = typeof event?.time === 'number' && typeof event.name === 'string' && typeof event.msg === 'string';
    return shaped && LEVELS[event.level] ? { ...event, level: LEVELS[event.level] } : undefined;
  } catch {
    return undefined;
  }
}

const printed = (lines) => lines.filter((line) => line.trim() !== '');
const eventsOf = (launcher, lines = launcher.lines) => printed(lines).map((line) => eventOf(line, launcher));
/** The launcher's lines, from start to stop, that are not events of the console's format (decision F12). */
const notEvents = (launcher) => printed(launcher.lines).filter((line) => eventOf(line, launcher) === undefined);
const launcherMessages = (events) => events.filter((event) => event?.name === 'nestegg').map((event) => event.msg);

async function waitForEvent(launcher, matches, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const event = eventsOf(launcher).find((candidate) => candidate && matches(candidate));
    if (event) return event;
    if (launcher.child.exitCode !== null) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`no such event; output so far:\n${launcher.lines.join('\n')}`);
}

const waitUntilReady = (launcher) =>
  waitForEvent(launcher, (event) => event.name === 'nestegg' && READY.test(event.msg), 90_000);

/** The launcher's process: under `script`, the pid its own events carry. */
function launcherPid(launcher) {
  if (!launcher.terminal) return launcher.child.pid;
  return eventsOf(launcher).find((event) => event?.name === 'nestegg')?.pid;
}

/** Stops a launcher a failed test left running (it then stops its apps and database). */
async function cleanUp(launcher) {
  if (!launcher || launcher.child.exitCode !== null || launcher.child.signalCode !== null) return;
  const pid = launcherPid(launcher) ?? launcher.child.pid;
  process.kill(pid, 'SIGTERM');
  const timer = setTimeout(() => launcher.child.kill('SIGKILL'), 30_000);
  await launcher.exited;
  clearTimeout(timer);
}

/** Sends SIGINT to the launcher alone and checks the ordered, quiet stop. Returns the events after it. */
async function interruptAndCheck(launcher, { embedded }) {
  const from = launcher.lines.length;
  process.kill(launcherPid(launcher), 'SIGINT');
  const { code, signal } = await launcher.exited;
  const lines = printed(launcher.lines.slice(from));
  const after = eventsOf(launcher, lines);
  const context = `output after SIGINT:\n${lines.join('\n')}`;
  expect({ code, signal }, context).toEqual({ code: 0, signal: null });
  expect(after, context).not.toContain(undefined);
  expect(after.at(-1), context).toMatchObject({ name: 'nestegg', msg: 'stopped' });
  expect(
    lines.filter((line) => TROUBLE.test(line)),
    context,
  ).toEqual([]);
  expect(
    after.filter((event) => event.level === 'ERROR' || event.level === 'FATAL'),
    context,
  ).toEqual([]);
  const at = (text) => after.findIndex((event) => event.name === 'nestegg' && event.msg === text);
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
  const said = (name, text) => after.filter((event) => event.name === name && event.msg.startsWith(text));
  expect(said('api', 'shutting down'), context).toHaveLength(1);
  expect(said('billing-worker', 'stopping billing worker').length, context).toBeLessThanOrEqual(1);
  return after;
}

/** This machine's addresses other than loopback, where a server bound to 127.0.0.1 must not answer. */
const otherAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((address) => address && !address.internal && address.family === 'IPv4')
    .map((address) => address.address);

function answers(host, port) {
  return new Promise((done) => {
    const socket = connect({ host, port, timeout: 2000 });
    const finish = (answered) => {
      socket.destroy();
      done(answered);
    };
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
    socket.once('timeout', () => finish(false));
  });
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
    const [port, workerPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    launcher = launch({
      DATABASE_URL: databaseUrl.href,
      PORT: String(port),
      WORKER_HEALTH_PORT: String(workerPort),
      METRICS_PORT: String(metricsPort),
    });

    const ready = await waitUntilReady(launcher);
    const address = READY.exec(ready.msg)?.[1];
    expect(address).toBe(`http://localhost:${port}`);
    // The ready line is the launcher's last line of start-up, after the sample-products line.
    const events = eventsOf(launcher);
    expect(launcherMessages(events).at(-1)).toBe(ready.msg);
    expect(launcherMessages(events)).toContainEqual(
      expect.stringMatching(/^BILLING_PRODUCTS is not set: sample products/),
    );
    // The migration step's lines are events too; on a fresh database it installs the job engine (decision F10).
    expect(events.filter((event) => event?.name === 'db:migrate').map((event) => event.msg)).toEqual([
      expect.stringMatching(/^applying migrations from /),
      expect.stringMatching(/^installing the job engine schema "pgboss"/),
      'migrations applied',
    ]);
    // No REDIS_URL: said once, by the api it concerns (decision F11).
    const redisNotices = launcher.lines.filter((line) => line.includes('REDIS_URL is not set'));
    expect(redisNotices).toEqual([expect.stringContaining('"name":"api"')]);

    // The api, its metrics and the worker listen on 127.0.0.1 only (decision I7).
    const said = (name, text) => events.filter((event) => event?.name === name && event.msg.startsWith(text));
    expect(said('api', 'Server listening at').map((event) => event.msg)).toEqual([
      `Server listening at http://127.0.0.1:${port}`,
    ]);
    expect(said('api', 'metrics on /metrics')).toEqual([expect.objectContaining({ host: '127.0.0.1' })]);
    for (const host of otherAddresses()) {
      for (const listener of [port, metricsPort, workerPort]) {
        expect(await answers(host, listener), `${host}:${listener}`).toBe(false);
      }
    }
    expect(await answers('127.0.0.1', metricsPort)).toBe(true);

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
        {
          id: 'premium_monthly',
          period: 'MONTHLY',
          price: 4900,
          currency: 'KRW',
          storeProductIds: { googlePlay: 'premium_monthly', appStore: 'premium_monthly' },
        },
        {
          id: 'premium_yearly',
          period: 'YEARLY',
          price: 49000,
          currency: 'KRW',
          storeProductIds: { googlePlay: 'premium_yearly', appStore: 'premium_yearly' },
        },
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
    // With stdout a pipe, one JSON event per line, from start to stop, whoever wrote it (decision F12).
    expect(notEvents(launcher), launcher.lines.join('\n')).toEqual([]);
  });
});

describe('npm run dev (start.mjs --dev) with its embedded PostgreSQL', () => {
  let launcher;
  let dataDir;

  afterAll(async () => {
    await cleanUp(launcher);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const terminal = hasUtilLinuxScript();

  test(`${terminal ? 'on a terminal: pretty lines only; ' : ''}stops the embedded PostgreSQL only after both apps have stopped`, async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'nestegg-launcher-'));
    chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as the `postgres` user, which must reach it
    const [port, workerPort, databasePort] = [await freePort(), await freePort(), await freePort()];
    launcher = launch(
      {
        NESTEGG_DATA_DIR: dataDir,
        EMBEDDED_POSTGRES_PORT: String(databasePort),
        PORT: String(port),
        WORKER_HEALTH_PORT: String(workerPort),
        METRICS_PORT: '0',
      },
      { terminal },
    );

    await waitUntilReady(launcher);
    expect(launcherMessages(eventsOf(launcher))).toContain(
      `embedded PostgreSQL listening on 127.0.0.1:${databasePort}`,
    );
    expect((await fetch(`http://localhost:${port}/readyz`)).status).toBe(200);

    await interruptAndCheck(launcher, { embedded: true });
    // On a terminal, every line pino-pretty's, the apps' as the launcher's: none is JSON (decision F12).
    expect(notEvents(launcher), launcher.lines.join('\n')).toEqual([]);
    expect(new Set(eventsOf(launcher).map((event) => event.name))).toEqual(
      new Set(['nestegg', 'db:migrate', 'api', 'billing-worker']),
    );
  });
});
