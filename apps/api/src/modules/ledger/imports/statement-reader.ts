import { Piscina } from 'piscina';
import { type AppError, BadRequestError, OverloadedError } from '../../../lib/errors.js';
import { workerScript } from '../../../lib/worker-script.js';
import { PayloadTooLargeError } from '../../../plugins/multipart.js';
import type { ReadOutcome, ReadTask } from './read-worker.js';

export type StatementRead = Extract<ReadOutcome, { ok: true }>;

export interface StatementReaderOptions {
  /** Files waiting for the worker beyond the one it reads; more → 503 OVERLOADED. */
  maxQueued: number;
  /** Heap of the worker: a file whose table does not fit is refused (413), the api keeps running. */
  maxHeapMb: number;
}

/** The problem a file the parser refused answers (decision SI7). */
function refusal(code: Extract<ReadOutcome, { ok: false }>['code'], message: string): AppError {
  switch (code) {
    case 'TOO_LARGE':
      return new PayloadTooLargeError(message);
    case 'TOO_MANY_ROWS':
      return new BadRequestError('STATEMENT_TOO_MANY_ROWS', message);
    case 'UNSUPPORTED_FORMAT':
    case 'LEGACY_XLS':
    case 'BINARY_FILE':
      return new BadRequestError('STATEMENT_UNSUPPORTED', message);
    default:
      return new BadRequestError('STATEMENT_UNREADABLE', message);
  }
}

/**
 * Reads statement files on one worker thread (piscina), so a 50,000-row file never holds the event loop: one
 * file at a time, a short queue, a bounded heap. A worker that dies reading a file (its heap) is replaced.
 */
export class StatementReader {
  private readonly pool: Piscina;

  constructor(options: StatementReaderOptions) {
    const { url, execArgv } = workerScript(import.meta.url, 'read-worker');
    this.pool = new Piscina({
      filename: url.href,
      execArgv,
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: 60_000,
      maxQueue: options.maxQueued,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
    });
  }

  /** The file read with `task`'s mapping (or the proposal's), or the problem it answers. */
  async read(task: ReadTask): Promise<StatementRead> {
    if (this.pool.queueSize >= this.pool.options.maxQueue) {
      throw new OverloadedError();
    }
    let outcome: ReadOutcome;
    try {
      outcome = (await this.pool.run(task)) as ReadOutcome;
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new PayloadTooLargeError('The statement is too large to read: split it by period.');
      }
      throw error;
    }
    if (!outcome.ok) throw refusal(outcome.code, outcome.message);
    return outcome;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
