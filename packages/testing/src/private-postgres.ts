import { execFile as execFileCallback, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const execFile = promisify(execFileCallback);

/**
 * A PostgreSQL cluster of the test's own (initdb in a temporary directory, its own port), so a test can
 * restart or stop it without touching the shared server. Needs the server binaries (`pg_config --bindir`).
 * As root, the cluster runs as the `postgres` system user (PostgreSQL refuses to run as root).
 */
export interface PrivatePostgres {
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

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
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
  const data = join(dir, 'data');
  const port = await freePort();
  const pgCtl = (...args: string[]) => run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', ...args]);

  await run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '--no-instructions']);
  // Options given at start are kept in postmaster.opts and reused by `restart`.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  await pgCtl('-o', options, 'start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: async (mode = 'fast') => {
      await pgCtl('-m', mode, 'restart');
    },
    stop: async () => {
      await pgCtl('-m', 'immediate', 'stop').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
