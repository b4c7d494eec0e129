import { Worker } from 'node:worker_threads';
import { AppError, BadRequestError, OverloadedError, ValidationFailedError } from '../../../lib/errors.js';
import { workerScript } from '../../../lib/worker-script.js';
import { PayloadTooLargeError } from '../../../plugins/multipart.js';
import type { EntriesPlanned, HeadPlan, PlanIssue } from './restore-plan.js';
import type { RefusalCode, RestoreMessage, RestoreRequest } from './restore-worker.js';

export interface RestoreParserOptions {
  /** Backups waiting for the worker beyond the one it works on; more → 503 OVERLOADED. */
  maxQueued: number;
  /** Heap of the worker: a backup whose objects do not fit is refused (413), the api keeps running. */
  maxHeapMb: number;
}

/** The problem a refused backup answers. */
function refusal(code: RefusalCode, issues: PlanIssue[]): AppError {
  switch (code) {
    case 'MALFORMED_JSON':
      return new BadRequestError('MALFORMED_JSON', 'The body is not valid JSON.');
    case 'VALIDATION_FAILED':
      return new ValidationFailedError(issues, 'The backup is not valid.');
    case 'EMPTY_BACKUP':
      return new AppError('EMPTY_BACKUP', 'The backup holds no data to restore.', { errors: issues });
    case 'INVALID_BACKUP':
      return new AppError('INVALID_BACKUP', 'The backup contradicts itself.', { errors: issues });
  }
}

/**
 * One backup as the worker works through it: its head (everything but the entries) is known when the session
 * is handed out; the entries arrive in batches while the worker goes on checking the rest. A refusal or a
 * dead worker surfaces as the error of `entryBatches`.
 */
export class RestoreSession {
  private readonly arrived: RestoreMessage[] = [];
  private wake: (() => void) | null = null;
  private failure: unknown = null;
  private planned: EntriesPlanned | null = null;

  constructor(readonly head: HeadPlan) {}

  /** The entry batches (JSON texts) in order; throws the refusal of a batch the worker could not accept. */
  async *entryBatches(): AsyncGenerator<string> {
    for (;;) {
      const message = await this.next();
      if (message.type === 'entries') yield message.batch;
      else if (message.type === 'done') {
        this.planned = message.planned;
        return;
      } else if (message.type === 'refused') throw refusal(message.code, message.issues);
    }
  }

  /** What the entries decided (after `entryBatches` ended). */
  get entriesPlanned(): EntriesPlanned {
    if (!this.planned) throw new Error('the entries of this restore were not all read');
    return this.planned;
  }

  /** @internal */
  receive(message: RestoreMessage): void {
    this.arrived.push(message);
    this.wake?.();
  }

  /** @internal */
  fail(error: unknown): void {
    this.failure = error;
    this.wake?.();
  }

  private async next(): Promise<RestoreMessage> {
    for (;;) {
      const message = this.arrived.shift();
      if (message) return message;
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = null;
    }
  }
}

interface Pending {
  /** The worker working on it. */
  worker: Worker;
  /** Until the head arrives: the caller of `open`. */
  opened?: { resolve(session: RestoreSession): void; reject(error: unknown): void };
  session?: RestoreSession;
}

/**
 * Parses and validates restore bodies on a worker thread: JSON.parse and the contract's schema over 200,000
 * entries take seconds, which on the main thread would stall every other request. One worker, started on first
 * use and kept; backups are taken one after another; a worker that dies (out of memory, say) fails what it held
 * and is replaced on the next call.
 */
export class RestoreParser {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly options: RestoreParserOptions) {}

  /** The session of a backup whose head is valid, or the 4xx problem that refuses it. */
  open(body: Buffer, today: string): Promise<RestoreSession> {
    if (this.pending.size > this.options.maxQueued) return Promise.reject(new OverloadedError());
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { worker, opened: { resolve, reject } });
      const request: RestoreRequest = { id, body, today };
      const whole = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
      worker.postMessage(request, whole ? [body.buffer as ArrayBuffer] : []);
    });
  }

  /** Stops the worker (the app's close). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const { url, execArgv } = workerScript(import.meta.url, 'restore-worker');
    const worker = new Worker(url, { execArgv, resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb } });
    worker.unref();
    worker.on('message', (message: RestoreMessage) => this.receive(message));
    worker.on('error', (error) => this.failAll(worker, error));
    worker.on('exit', () => this.failAll(worker, new Error('the restore worker stopped')));
    this.worker = worker;
    return worker;
  }

  private receive(message: RestoreMessage): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === 'done' || message.type === 'refused') this.pending.delete(message.id);
    if (pending.opened) {
      const { opened } = pending;
      delete pending.opened;
      if (message.type === 'refused') opened.reject(refusal(message.code, message.issues));
      else if (message.type === 'head') {
        pending.session = new RestoreSession(message.head);
        opened.resolve(pending.session);
      } else opened.reject(new Error(`the restore worker answered ${message.type} before the head`));
      return;
    }
    pending.session?.receive(message);
  }

  /** Everything the dead worker held fails; the next call starts a new one. */
  private failAll(worker: Worker, error: Error): void {
    if (this.worker === worker) this.worker = null;
    const outOfMemory = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
    const reason = outOfMemory ? new PayloadTooLargeError('The backup is too large to restore.') : error;
    for (const [id, pending] of this.pending) {
      if (pending.worker !== worker) continue;
      pending.opened?.reject(reason);
      pending.session?.fail(reason);
      this.pending.delete(id);
    }
  }
}
