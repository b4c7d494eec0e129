/**
 * Decision FD2 in the api process itself (src/server.ts, run from source as `npm run dev` does): an error outside
 * any request from the database driver is logged and the api keeps serving; any other one drains it and it exits
 * with 1. Faults are raised by a preloaded injector (src/test/fault-injector.mjs), one per line on its stdin.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freePort, useTestDatabase, useTestRedis } from '@nestegg/testing';
import { afterAll, expect, it } from 'vitest';

const apiDir = fileURLToPath(new URL('..', import.meta.url));
const injector = fileURLToPath(new URL('./test/fault-injector.mjs', import.meta.url));
const database = useTestDatabase();
const redis = useTestRedis();
let api: ChildProcess | undefined;

afterAll(() => {
  if (api && api.exitCode === null) api.kill('SIGKILL');
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('keeps serving through a database driver fault and drains and exits with 1 on any other', async () => {
  const port = await freePort();
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(DATABASE_URL|REDIS_URL|REDIS_KEY_PREFIX|PORT|npm_)/i.test(key)),
  );
  const child = spawn(
    process.execPath,
    ['--conditions=@nestegg/source', '--import', 'tsx', '--import', injector, 'src/server.ts'],
    {
      cwd: apiDir,
      env: {
        ...inherited,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        PORT: String(port),
        DATABASE_URL: database.current.url,
        REDIS_URL: redis.current.url,
        REDIS_KEY_PREFIX: redis.current.keyPrefix,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  api = child;
  const output: string[] = [];
  const keep = (chunk: Buffer) => output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = once(child, 'exit');
  const healthy = async () => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
    } catch {
      return false;
    }
  };

  const deadline = Date.now() + 60_000;
  while (!(await healthy())) {
    expect(child.exitCode, output.join('\n')).toBeNull();
    expect(Date.now(), 'the api did not start').toBeLessThan(deadline);
    await sleep(200);
  }

  child.stdin?.write('driver\n');
  await sleep(1000);
  expect(child.exitCode, output.join('\n')).toBeNull();
  expect(await healthy()).toBe(true);
  const survived = output.find((line) => line.includes('from the database driver: serving on'));
  expect(survived, output.join('\n')).toBeDefined();
  expect(JSON.parse(survived!)).toMatchObject({ level: 50, origin: 'uncaughtException', survived: 1 });

  child.stdin?.write('own\n');
  const [code] = await Promise.race([exited, sleep(20_000).then(() => ['still running'])]);
  expect(code, output.join('\n')).toBe(1);
  const fatal = output.find((line) => line.includes('draining and exiting'));
  expect(JSON.parse(fatal!)).toMatchObject({ level: 60, err: { message: 'a bug of ours, outside any request' } });
}, 90_000);
