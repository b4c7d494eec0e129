/**
 * What an error that no request caught does to a replica (docs/decisions/faults-and-bursts.md FD2). An uncaught exception or an
 * unhandled rejection is logged at error with its stack (logs only: no client ever sees it) and counted. When it
 * comes from the database driver's connection machinery the replica keeps serving: the driver settles the queries
 * of a connection it lost and reconnects, readiness reports the database, so stopping would only take the healthy
 * half of the service down with the broken database. Anything else is not known to leave the process sound: it
 * drains (stops accepting, lets running work finish within a bound) and exits with 1, and the orchestrator
 * starts a fresh one.
 */

export type FaultOrigin = 'uncaughtException' | 'unhandledRejection';

/** The logger calls used (pino's and Fastify's loggers fit). */
export interface FaultLogger {
  error(object: object, message: string): void;
  fatal(object: object, message: string): void;
}

export interface ProcessFaultPolicyOptions {
  logger: FaultLogger;
  /** Stops taking work and lets running work finish; the process exits with 1 once it resolves. */
  drain: () => Promise<unknown>;
  /** Longest wait for `drain` before exiting anyway (default 10 s). */
  drainTimeoutMs?: number;
  /** Which faults leave the process sound (default: `isDatabaseConnectionFault`). */
  isRecoverable?: (error: unknown) => boolean;
  /** Injected by tests; `process.exit` otherwise. */
  exit?: (code: number) => void;
}

export interface ProcessFaultPolicy {
  /** Faults kept running through since the policy was installed. */
  readonly survived: number;
  uninstall(): void;
}

/** postgres.js's own connection errors (`Errors.connection`; the last is our patch's, decision FO33). */
const DRIVER_CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  'CONNECTION_TARGET_SESSION_ATTRS',
]);
/** Socket errors, recoverable only on a query the driver rejected (it marks those with `query`). */
const SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** SQLSTATEs of a server going away: class 08 (connection exception), 57P01-57P03 (shutdown, crash, starting). */
const SERVER_GONE = /^(08...|57P0[123])$/;
/** A stack frame in the postgres.js package, under any layout (npm, pnpm, a deployed image) or URL form. */
const DRIVER_FRAME = /[/\\]node_modules[/\\]postgres[/\\]/;

function firstApplicationFrame(stack: string): string | undefined {
  return stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .find((line) => !/\(node:|at node:/.test(line));
}

function isDriverConnectionError(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  if (DRIVER_CONNECTION_CODES.has(code)) return true;
  if (error.name === 'PostgresError' && SERVER_GONE.test(code)) return true;
  return SOCKET_CODES.has(code) && 'query' in error;
}

/**
 * Whether an error that reached the process was raised by the database driver's connection machinery: thrown
 * from postgres.js's own code (its first frame outside Node's internals is in the package; a callback of ours that
 * the driver called does not count), or a connection failure of a query nobody awaited, also when wrapped as a
 * `cause` (drizzle's "Failed query"). Narrower than `isDatabaseUnavailable` (FO1) on purpose: a socket error counts
 * only on a query postgres.js rejected, not from any other client.
 */
export function isDatabaseConnectionFault(error: unknown): boolean {
  if (error instanceof Error && typeof error.stack === 'string') {
    const frame = firstApplicationFrame(error.stack);
    if (frame && DRIVER_FRAME.test(frame)) return true;
  }
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (isDriverConnectionError(current)) return true;
    current = current.cause;
  }
  return false;
}

export function installProcessFaultPolicy(options: ProcessFaultPolicyOptions): ProcessFaultPolicy {
  const { logger, drain, drainTimeoutMs = 10_000, isRecoverable = isDatabaseConnectionFault } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let survived = 0;
  let draining = false;

  const onFault = (origin: FaultOrigin) => (error: unknown) => {
    if (isRecoverable(error)) {
      survived += 1;
      logger.error({ err: error, origin, survived }, 'error outside any request, from the database driver: serving on');
      return;
    }
    if (draining) {
      logger.fatal({ err: error, origin }, 'second error outside any request while draining: exiting');
      exit(1);
      return;
    }
    draining = true;
    logger.fatal({ err: error, origin }, 'error outside any request: draining and exiting');
    const timer = setTimeout(() => {
      logger.fatal({ drainTimeoutMs }, 'drain did not finish in time: exiting');
      exit(1);
    }, drainTimeoutMs);
    timer.unref();
    Promise.resolve()
      .then(drain)
      .catch((drainError: unknown) => logger.error({ err: drainError }, 'drain failed'))
      .finally(() => {
        clearTimeout(timer);
        exit(1);
      });
  };

  const onUncaught = onFault('uncaughtException');
  const onUnhandled = onFault('unhandledRejection');
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUnhandled);
  return {
    get survived() {
      return survived;
    },
    uninstall() {
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onUnhandled);
    },
  };
}
