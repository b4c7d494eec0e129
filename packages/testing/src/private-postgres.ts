import { execFile as execFileCallback, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { freePort } from './ports.js';

const execFile = promisify(execFileCallback);

/**
 * A PostgreSQL cluster of the test's own (initdb in a temporary directory, its own port), so a test can
 * restart or stop it without touching the shared server. Needs the server binaries (`pg_config --bindir`).
 * As root, the cluster runs as the `postgres` system user (PostgreSQL refuses to run as root).
 */
export interface PrivatePostgres extends PrivateServer {
  /** The `postgres` database of the cluster, as its superuser. */
  url: string;
  /**
   * `pg_ctl restart`: `fast` terminates every backend (57P01) and checkpoints; `immediate` kills them
   * without a checkpoint (the server recovers at start, as after a crash). Resolves once it accepts
   * connections again.
   */
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops the server and deletes its files. */
  stop(): Promise<void>;
}

/** One server of a test's own: its port, its `postgres` database's URL, and `pg_ctl` on its data directory. */
export interface PrivateServer {
  port: number;
  /** The `postgres` database of this server, as the superuser. */
  url: string;
  /** `pg_ctl -m <mode> stop`: `immediate` is a crash (no checkpoint, every connection reset at once). */
  stopServer(mode?: 'smart' | 'fast' | 'immediate'): Promise<void>;
  /** Starts it again after `stopServer`, with the options it was first started with. */
  startServer(): Promise<void>;
}

/**
 * A primary and a streaming standby of the test's own (`pg_basebackup`), on two loopback ports: what a
 * failover test stops and promotes. With `synchronous`, the primary waits for the standby to flush every
 * commit before it answers (`synchronous_standby_names = '*'`), so nothing the primary acknowledged is
 * missing from the standby.
 */
export interface PrivateReplicatedPostgres {
  primary: PrivateServer;
  standby: PrivateServer & {
    /** `pg_ctl promote -w`: resolves once the standby has left recovery and accepts writes. */
    promote(): Promise<void>;
  };
  /** Both hosts in one libpq URL, `postgres://postgres@127.0.0.1:<primary>,127.0.0.1:<standby>/<database>`. */
  url(database?: string, query?: string): string;
  /** Stops both servers and deletes their files. */
  stop(): Promise<void>;
}

interface Tools {
  dir: string;
  run(tool: string, args: string[]): Promise<unknown>;
}

function tools(): Tools {
  const bindir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'nestegg-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) =>
    asRoot
      ? execFile('runuser', ['-u', 'postgres', '--', join(bindir, tool), ...args])
      : execFile(join(bindir, tool), args);
  return { dir, run };
}

/** `pg_ctl` on one data directory (its log beside it), waiting up to 60 s for each step. */
function pgCtlFor({ dir, run }: Tools, name: string) {
  const data = join(dir, name);
  return (...args: string[]) => run('pg_ctl', ['-D', data, '-l', join(dir, `${name}.log`), '-w', '-t', '60', ...args]);
}

/** Options every server of ours starts with; given at start they are kept in postmaster.opts for `restart`. */
const serverOptions = (port: number, dir: string) =>
  `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const kit = tools();
  const data = join(kit.dir, 'data');
  const port = await freePort();
  const pgCtl = pgCtlFor(kit, 'data');

  await kit.run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '--no-instructions']);
  await pgCtl('-o', serverOptions(port, kit.dir), 'start');
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: async (mode = 'fast') => {
      await pgCtl('-m', mode, 'restart');
    },
    stopServer: async (mode = 'fast') => {
      await pgCtl('-m', mode, 'stop');
    },
    startServer: async () => {
      await pgCtl('-o', serverOptions(port, kit.dir), 'start');
    },
    stop: async () => {
      await pgCtl('-m', 'immediate', 'stop').catch(() => {});
      rmSync(kit.dir, { recursive: true, force: true });
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` on the server at `url` until it returns true (30 s at most). */
async function until(url: string, probe: (sql: postgres.Sql) => Promise<boolean>, what: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const deadline = Date.now() + 30_000;
    while (!(await probe(sql))) {
      if (Date.now() > deadline) throw new Error(`private PostgreSQL: ${what} did not happen within 30 s`);
      await sleep(100);
    }
  } finally {
    await sql.end();
  }
}

export async function startPrivateReplicatedPostgres(
  options: { synchronous?: boolean } = {},
): Promise<PrivateReplicatedPostgres> {
  const kit = tools();
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const primaryCtl = pgCtlFor(kit, 'primary');
  const standbyCtl = pgCtlFor(kit, 'standby');
  const urlOf = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;

  await kit.run('initdb', [
    '-D',
    join(kit.dir, 'primary'),
    '-U',
    'postgres',
    '-A',
    'trust',
    '--no-sync',
    '--no-instructions',
  ]);
  await primaryCtl('-o', serverOptions(primaryPort, kit.dir), 'start');
  // initdb's pg_hba.conf lets 127.0.0.1 replicate (trust); -R writes standby.signal and primary_conninfo.
  await kit.run('pg_basebackup', [
    '-D',
    join(kit.dir, 'standby'),
    '-h',
    '127.0.0.1',
    '-p',
    String(primaryPort),
    '-U',
    'postgres',
    '-X',
    'stream',
    '-c',
    'fast',
    '-R',
    '--no-sync',
  ]);
  await standbyCtl('-o', serverOptions(standbyPort, kit.dir), 'start');
  await until(
    urlOf(primaryPort),
    async (sql) =>
      (await sql`select count(*)::int as n from pg_stat_replication where state = 'streaming'`)[0]?.n === 1,
    'streaming to the standby',
  );
  if (options.synchronous) {
    const sql = postgres(urlOf(primaryPort), { max: 1, onnotice: () => {} });
    await sql`alter system set synchronous_standby_names = '*'`;
    await sql`select pg_reload_conf()`;
    await sql.end();
    await until(
      urlOf(primaryPort),
      async (probe) => (await probe`select sync_state from pg_stat_replication`)[0]?.sync_state === 'sync',
      'synchronous replication',
    );
  }

  const server = (ctl: ReturnType<typeof pgCtlFor>, port: number): PrivateServer => ({
    port,
    url: urlOf(port),
    stopServer: async (mode = 'fast') => {
      await ctl('-m', mode, 'stop');
    },
    startServer: async () => {
      await ctl('-o', serverOptions(port, kit.dir), 'start');
    },
  });
  return {
    primary: server(primaryCtl, primaryPort),
    standby: {
      ...server(standbyCtl, standbyPort),
      promote: async () => {
        await standbyCtl('promote');
      },
    },
    url: (database = 'postgres', query = '') =>
      `postgres://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/${database}${query ? `?${query}` : ''}`,
    stop: async () => {
      await Promise.all([
        primaryCtl('-m', 'immediate', 'stop').catch(() => {}),
        standbyCtl('-m', 'immediate', 'stop').catch(() => {}),
      ]);
      rmSync(kit.dir, { recursive: true, force: true });
    },
  };
}
