import { PassThrough, type Readable } from 'node:stream';
import type { RestoreResult } from '@nestegg/contract';
import type { Database } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { dateIn } from '@nestegg/domain';
import { AppError, OverloadedError } from '../../../lib/errors.js';
import { AmountOutOfRangeError, isAmountOutOfRange, pgErrorCode } from '../../../lib/pg-error.js';
import type { AccountNumberCipher } from '../wallets/index.js';
import { BACKUP_TAIL, entryChunks, readHead } from './ledger-export.js';
import {
  deleteLedger,
  entryBatch,
  insertAfterEntries,
  insertBeforeEntries,
  lockLedger,
  type RestoreCalendar,
  type RestoreStage,
  setOpeningBalances,
} from './ledger-restore.js';
import type { RestoreParser, RestoreSession } from './restore-parser.js';

export interface BackupDeps {
  db: Database;
  clock: Clock;
  accountNumbers: AccountNumberCipher;
  /** Parses restore bodies off the main thread. */
  parser: RestoreParser;
  /** `APP_TIMEZONE`: the current month budgets are exported from and restored into. */
  timeZone: string;
  /**
   * Restores, and exports, running at once in this process; more → 503 OVERLOADED. Each holds a database
   * connection for its whole length (an export as long as its client reads), so they must not take the pool.
   */
  maxConcurrent: number;
}

/** What the export route sends: the streamed JSON text and the file name it suggests. */
export interface BackupExport {
  stream: Readable;
  filename: string;
}

/** The stream was closed before the export ended (the client went away). */
class ExportAbortedError extends Error {
  constructor() {
    super('the backup export stream was closed before its end');
  }
}

/** Bytes buffered ahead of the socket: one entry batch can be read while the previous one is sent. */
const EXPORT_BUFFER_BYTES = 1024 * 1024;

/** Writes a chunk, waiting while the stream is full; fails once the stream is closed. */
function write(out: PassThrough, chunk: string): Promise<void> {
  if (out.destroyed) return Promise.reject(new ExportAbortedError());
  if (out.write(chunk)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(new ExportAbortedError());
    out.on('drain', onDrain);
    out.on('close', onClose);
  });
}

/** A record the database refused while restoring (a CHECK, a unique key): the backup's fault, named by stage. */
function refusedByDatabase(error: unknown, stage: RestoreStage | null): unknown {
  if (isAmountOutOfRange(error)) return new AmountOutOfRangeError();
  if (pgErrorCode(error)?.startsWith('23') !== true) return error;
  return new AppError('INVALID_BACKUP', 'A record of the backup breaks a ledger rule; nothing was changed.', {
    errors: [{ path: `body.${stage ?? 'accounts'}`, message: 'a record here breaks a ledger rule' }],
  });
}

/** How many of a kind run at once: a slot is taken or the caller is told to come back (503). */
class Slots {
  private taken = 0;

  constructor(private readonly max: number) {}

  take(): () => void {
    if (this.taken >= this.max) throw new OverloadedError();
    this.taken += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.taken -= 1;
    };
  }
}

/** Backup export (streamed) and restore (one transaction) of a member's ledger. */
export class BackupService {
  private readonly restores: Slots;
  private readonly exports: Slots;

  constructor(private readonly deps: BackupDeps) {
    this.restores = new Slots(deps.maxConcurrent);
    this.exports = new Slots(deps.maxConcurrent);
  }

  /**
   * A restore body → its session: checked off the main thread; the head (everything but the entries) is
   * valid when this resolves (else a 4xx problem), the entries follow while the restore writes.
   */
  open(body: Buffer): Promise<RestoreSession> {
    return this.deps.parser.open(body, this.calendar().today);
  }

  /** Stops the parsing worker. */
  close(): Promise<void> {
    return this.deps.parser.close();
  }

  /**
   * Replaces the member's ledger with the backup's records in one transaction, locked against the member's
   * other writes; any failure, the worker's refusal of a late entry included, rolls all of it back. The
   * entries are written batch by batch as the worker hands them over. Answers the counts per kind.
   */
  async restore(memberId: number, session: RestoreSession): Promise<RestoreResult> {
    const release = this.restores.take();
    const calendar = this.calendar();
    const { head } = session;
    const wallets = head.wallets.map((wallet) => ({
      ...wallet,
      account_number: this.deps.accountNumbers.encrypt(wallet.account_number),
    }));
    let stage: RestoreStage | null = null;
    const reached = (name: RestoreStage) => {
      stage = name;
    };
    try {
      await this.deps.db.transaction(async (tx) => {
        await lockLedger(tx, memberId);
        await deleteLedger(tx, memberId);
        await insertBeforeEntries(tx, memberId, { ...head, wallets }, calendar, reached);
        reached('entries');
        for await (const batch of session.entryBatches()) await tx.execute(entryBatch(memberId, batch));
        reached('accounts');
        await setOpeningBalances(tx, memberId, session.entriesPlanned);
        await insertAfterEntries(tx, memberId, head, calendar, reached);
      });
    } catch (error) {
      throw refusedByDatabase(error, stage);
    } finally {
      release();
    }
    return head.counts;
  }

  /**
   * The member's ledger as a backup, streamed from one read-only snapshot: the small lists are read before
   * this resolves (their failure is an ordinary error answer), the entries batch by batch as the client
   * reads, so memory holds about one batch whatever the ledger's size. A client that stops reading holds
   * the snapshot until the socket times out (HTTP_CONNECTION_TIMEOUT_MS).
   */
  async exportBackup(memberId: number): Promise<BackupExport> {
    const release = this.exports.take();
    const calendar = this.calendar();
    const exportedAt = this.deps.clock.now();
    const out = new PassThrough({ highWaterMark: EXPORT_BUFFER_BYTES });
    // Fastify listens (and logs) once it sends the stream; an error before that must not go unheard.
    out.on('error', () => undefined);
    let headRead: (() => void) | undefined;
    let failed: ((error: unknown) => void) | undefined;
    const started = new Promise<void>((resolve, reject) => {
      headRead = resolve;
      failed = reject;
    });
    this.deps.db
      .transaction(
        async (tx) => {
          const head = await readHead(tx, memberId, calendar, this.deps.accountNumbers, exportedAt);
          headRead!();
          await write(out, head);
          for await (const chunk of entryChunks(tx, memberId)) await write(out, chunk);
          await write(out, BACKUP_TAIL);
          out.end();
        },
        { isolationLevel: 'repeatable read', accessMode: 'read only' },
      )
      .catch((error: unknown) => {
        failed!(error);
        if (!(error instanceof ExportAbortedError)) out.destroy(error as Error);
      })
      .finally(release);
    await started;
    return { stream: out, filename: `nestegg-backup-${calendar.today}.json` };
  }

  private calendar(): RestoreCalendar {
    const today = dateIn(this.deps.timeZone, this.deps.clock.now());
    const [year, month] = today.split('-').map(Number) as [number, number];
    return { today, year, month };
  }
}
