import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabaseUrl } from './env.js';
import { freePort } from './ports.js';

/**
 * A PgBouncer of the test's own in front of a PostgreSQL (decision DB17): Debian's `pgbouncer` binary on a free
 * loopback port, every database name passed through to the server (`* = host=… port=…`, so each test file's database
 * copied from the template is reachable under its own name), `auth_type = trust`, and the pool mode asked for
 * (transaction by default, what DATABASE_POOLER=transaction is for). As root it runs as the `postgres` system user
 * (PgBouncer refuses to run as root: `-u postgres`), like the private PostgreSQL.
 */
export interface PrivatePgBouncer {
  port: number;
  /** `url` (a PostgreSQL URL) with its host and port replaced by the pooler's: the same database through PgBouncer. */
  urlFor(url: string): string;
  /** What PgBouncer wrote (its log), for a failure's message. */
  log(): string;
  /** SIGINT (PgBouncer's immediate shutdown), then its files are deleted. */
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** The server it pools: host and port of this URL (default `TEST_DATABASE_URL`). */
  serverUrl?: string;
  poolMode?: 'transaction' | 'session' | 'statement';
  /** Server connections per database and user (default 10, the api's DATABASE_POOL_SIZE). */
  poolSize?: number;
  /** Startup parameters PgBouncer ignores instead of refusing the connection (default none). */
  ignoreStartupParameters?: string[];
}

/** `pgbouncer` on the PATH or where Debian's package puts it. */
function pgbouncerBinary(): string {
  for (const candidate of ['pgbouncer', '/usr/sbin/pgbouncer']) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {}
  }
  throw new Error('pgbouncer is not installed: apt-get install pgbouncer (Debian), or brew install pgbouncer');
}

function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`pgbouncer exited with ${child.exitCode}: ${log()}`));
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`pgbouncer did not listen on ${port} within 10 s: ${log()}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

export async function startPgBouncer(options: PgBouncerOptions = {}): Promise<PrivatePgBouncer> {
  const binary = pgbouncerBinary();
  const server = new URL(options.serverUrl ?? testDatabaseUrl);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'nestegg-pgbouncer-'));
  const user = decodeURIComponent(server.username || 'postgres');
  const config = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=${server.hostname.replace(/^\[|\]$/g, '')} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      `default_pool_size = ${options.poolSize ?? 10}`,
      'max_client_conn = 500',
      // A test file's database is dropped when the file ends: do not keep its server connections long.
      'server_idle_timeout = 5',
      'server_check_delay = 0',
      `ignore_startup_parameters = ${(options.ignoreStartupParameters ?? []).join(',')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    for (const path of [dir, config, join(dir, 'users.txt')]) chownSync(path, uid, gid);
  }
  // `-u`: PgBouncer drops root itself (no runuser between: a signal reaches it directly).
  const child = spawn(binary, [...(asRoot ? ['-u', 'postgres'] : []), config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const log = () => output;
  const stop = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGINT');
    });
  try {
    await waitForPort(port, child, log);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    urlFor(url: string) {
      const through = new URL(url);
      through.hostname = '127.0.0.1';
      through.port = String(port);
      return through.toString();
    },
    log,
    stop,
  };
}
