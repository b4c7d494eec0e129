import { type ChildProcess, fork } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  CHILD_CONFIG_VARIABLE,
  type ChildCommand,
  type ChildConfig,
  type ChildMessage,
  type ChildReplies,
  type ParentMessage,
  type RowTarget,
} from './protocol.js';

const SERVER_SCRIPT = fileURLToPath(new URL('./server.ts', import.meta.url));
const STARTUP_TIMEOUT_MS = 120_000;

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** The child process hosting the api and the baselines, seen from the parent. */
export class BenchChild {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  private constructor(
    private readonly child: ChildProcess,
    readonly targets: RowTarget[],
    /** The api's `/metrics` when the child runs with `--telemetry`. */
    readonly metricsUrl: string | null,
  ) {
    child.on('message', (message: ChildMessage) => {
      if (message.type !== 'reply') return;
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) waiting?.reject(new Error(`bench child: ${message.error}`));
      else waiting?.resolve(message.result);
    });
    child.on('exit', (code) => {
      for (const waiting of this.pending.values()) waiting.reject(new Error(`bench child exited with ${code}`));
      this.pending.clear();
    });
  }

  /**
   * Forks the child under tsx with the source condition, as `pnpm bench` runs the parent. Its stdout (the
   * api's request log) goes to `logFile` or nowhere: either way logging costs what it costs in
   * production, without a terminal.
   */
  static async start(config: ChildConfig, logFile: string | null): Promise<BenchChild> {
    const stdout = logFile ? openSync(logFile, 'a') : 'ignore';
    const child = fork(SERVER_SCRIPT, [], {
      execArgv: ['--conditions=@nestegg/source', '--import', import.meta.resolve('tsx')],
      env: { ...process.env, [CHILD_CONFIG_VARIABLE]: JSON.stringify(config) },
      stdio: ['ignore', stdout, 'inherit', 'ipc'],
    });
    if (typeof stdout === 'number') closeSync(stdout);
    const ready = await new Promise<Extract<ChildMessage, { type: 'ready' }>>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('bench child did not start in time'));
      }, STARTUP_TIMEOUT_MS);
      child.on('message', (message: ChildMessage) => {
        if (message.type !== 'ready') return;
        clearTimeout(timer);
        resolve(message);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`bench child exited with ${code} before it was ready`));
      });
    });
    return new BenchChild(child, ready.targets, ready.metricsUrl);
  }

  target(key: string): RowTarget {
    const found = this.targets.find((target) => target.key === key);
    if (!found) throw new Error(`the child has no row ${key}`);
    return found;
  }

  call<C extends ChildCommand>(command: C): Promise<ChildReplies[C['type']]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      const message: ParentMessage = { id, command };
      this.child.send(message);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    await this.call({ type: 'stop' }).catch(() => this.child.kill('SIGKILL'));
    await exited;
  }
}
