import { type ProblemCode, problemCodeStatus } from '@nestegg/contract';

/** The problem codes sent with one HTTP status: `CodeWithStatus<409>` is every conflict's code. */
export type CodeWithStatus<S extends number> = {
  [C in ProblemCode]: (typeof problemCodeStatus)[C] extends S ? C : never;
}[ProblemCode];

/**
 * Typed errors thrown by services. The error handler turns each into an RFC 9457 problem body
 * whose `code` is stable: clients branch on it.
 */
export interface FieldIssue {
  path: string;
  message: string;
}

/** What a problem carries besides its code and detail. */
export interface AppErrorOptions {
  errors?: FieldIssue[];
  /** How long the client should wait before trying again: the one source of `Retry-After`. */
  retryAfterSeconds?: number;
}

/** `Retry-After` counts whole seconds, and a wait of 0 would invite an immediate retry. */
const wholeSecondsToWait = (seconds: number): number => Math.max(1, Math.ceil(seconds));

/**
 * How long to wait after a passing outage when the thrower does not say (decision C51). A 503 for a missing
 * configuration (`…_NOT_CONFIGURED`) or an unready replica (`NOT_READY`) has none: retrying soon does not help.
 */
const RETRY_AFTER_SECONDS_OF: Partial<Record<ProblemCode, number>> = {
  SERVICE_UNAVAILABLE: 5,
  OVERLOADED: 5,
  DATABASE_UNAVAILABLE: 5,
  PROVIDER_UNAVAILABLE: 30,
  STORE_UNAVAILABLE: 30,
};

/**
 * A problem with its code; the status is the one the contract gives the code (`problemCodeStatus`), never restated.
 * The error handler is what turns it into an answer, `Retry-After` included (decision C50).
 */
export class AppError extends Error {
  readonly status: number;
  readonly errors: FieldIssue[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly code: ProblemCode,
    message: string,
    { errors, retryAfterSeconds }: AppErrorOptions = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.status = problemCodeStatus[code];
    this.errors = errors;
    const wait = retryAfterSeconds ?? RETRY_AFTER_SECONDS_OF[code];
    this.retryAfterSeconds = wait === undefined ? undefined : wholeSecondsToWait(wait);
  }
}

export class ValidationFailedError extends AppError {
  constructor(errors: FieldIssue[], message = 'The request is not valid.') {
    super('VALIDATION_FAILED', message, { errors });
  }
}

export class BadRequestError extends AppError {
  constructor(code: CodeWithStatus<400>, message: string) {
    super(code, message);
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'Log in to use this operation.') {
    super('UNAUTHENTICATED', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(code: CodeWithStatus<403> = 'FORBIDDEN', message = 'You may not use this operation.') {
    super(code, message);
  }
}

export class PremiumRequiredError extends ForbiddenError {
  constructor() {
    super('PREMIUM_REQUIRED', 'This operation needs a PREMIUM membership.');
  }
}

export class NotFoundError extends AppError {
  constructor(what = 'resource') {
    super('NOT_FOUND', `The ${what} does not exist.`);
  }
}

export class ConflictError extends AppError {
  constructor(code: CodeWithStatus<409>, message: string) {
    super(code, message);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    const seconds = wholeSecondsToWait(retryAfterSeconds);
    super('RATE_LIMITED', `Too many attempts. Try again in ${seconds} seconds.`, { retryAfterSeconds: seconds });
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(
    code: CodeWithStatus<503> = 'SERVICE_UNAVAILABLE',
    message = 'The service is not available right now.',
    retryAfterSeconds?: number,
  ) {
    super(code, message, { retryAfterSeconds });
  }
}

/** Seconds a client is told to wait while the database is away (a PostgreSQL restart takes a few; decision FO1). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** What any request answers while PostgreSQL cannot be reached or does not answer in time (decision FO1). */
export class DatabaseUnavailableError extends AppError {
  constructor() {
    super('DATABASE_UNAVAILABLE', 'The database is not available right now. Try again in a few seconds.', {
      retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
    });
  }
}

/** What an overloaded instance answers: 503 OVERLOADED, retry shortly (another instance may take it). */
export class OverloadedError extends AppError {
  constructor(retryAfterSeconds = 5) {
    super('OVERLOADED', 'The service is overloaded right now. Try again in a few seconds.', { retryAfterSeconds });
  }
}
