import type { Socket } from 'node:net';
import { type ProblemCode, problemCodeStatus } from '@nestegg/contract';
import { isDatabaseUnavailable } from '@nestegg/db';
import { RequestValidationError } from '@ts-rest/fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ZodError } from 'zod';
import { contractRouteOf } from '../lib/contract-route.js';
import {
  AppError,
  type AppErrorOptions,
  DatabaseUnavailableError,
  type FieldIssue,
  ValidationFailedError,
} from '../lib/errors.js';
import { fieldIssues } from '../lib/field-issues.js';
import { AmountOutOfRangeError, isAmountOutOfRange, isDataException } from '../lib/pg-error.js';
import { baselineSecurityHeaders } from '../lib/security-headers.js';

/** A status some problem code is sent with: each has a title. */
type ProblemStatus = (typeof problemCodeStatus)[ProblemCode];

interface Problem {
  type: string;
  title: string;
  status: ProblemStatus;
  code: ProblemCode;
  detail: string;
  instance?: string;
  errors?: FieldIssue[];
}

/**
 * What a problem answer says. Its status and title follow from the code (`problemCodeStatus`), and its
 * `Retry-After` from `retryAfterSeconds`: every problem answer is written from one of these (decision C50).
 */
export interface ProblemAnswer extends AppErrorOptions {
  code: ProblemCode;
  detail: string;
}

const titles: Record<ProblemStatus, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const INTERNAL_ERROR: ProblemAnswer = {
  code: 'INTERNAL_ERROR',
  detail: 'Something went wrong on our side. The error has been logged.',
};

/** The codes of the statuses Fastify and its plugins give their own client errors. */
const clientErrorCodes: Partial<Record<number, ProblemCode>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

/** A client error of a status no code has (412, 416 from the docs page's files) is a 400 `BAD_REQUEST` (C50). */
const clientErrorCode = (status: number): ProblemCode => clientErrorCodes[status] ?? 'BAD_REQUEST';

const pathOf = (request: FastifyRequest): string => request.url.split('?')[0] ?? '';

function problemBody({ code, detail, errors }: ProblemAnswer, instance?: string): Problem {
  const status = problemCodeStatus[code];
  return {
    type: 'about:blank',
    title: titles[status],
    status,
    code,
    detail,
    ...(instance ? { instance } : {}),
    ...(errors ? { errors } : {}),
  };
}

/**
 * The headers a problem carries: `Retry-After` when the client should wait, written here and nowhere else, and on
 * every 429 (a rate limit or a daily quota) the X-RateLimit pair beside it (decision O5; @fastify/rate-limit adds
 * the limit itself).
 */
function problemHeaders({ code, retryAfterSeconds }: ProblemAnswer): Record<string, string> {
  if (retryAfterSeconds === undefined) return {};
  const seconds = String(retryAfterSeconds);
  const rateLimit: Record<string, string> =
    problemCodeStatus[code] === 429 ? { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': seconds } : {};
  return { 'retry-after': seconds, ...rateLimit };
}

const answerOf = (error: AppError): ProblemAnswer => ({
  code: error.code,
  detail: error.message,
  errors: error.errors,
  retryAfterSeconds: error.retryAfterSeconds,
});

/** For answers to requests that failed before the edge hook ran (a URL the router refused, say). */
function setEdgeHeaders(request: FastifyRequest, reply: FastifyReply): void {
  for (const [name, value] of Object.entries(baselineSecurityHeaders)) {
    if (!reply.hasHeader(name)) reply.header(name, value);
  }
  if (!reply.hasHeader('x-request-id')) reply.header('x-request-id', request.id);
}

/** Sets the reply's status, type and headers for `answer` and returns its body: the one way a problem is answered. */
function prepareProblem(request: FastifyRequest, reply: FastifyReply, answer: ProblemAnswer): string {
  const body = problemBody(answer, pathOf(request));
  reply.headers(problemHeaders(answer));
  setEdgeHeaders(request, reply);
  reply.code(body.status).type('application/problem+json');
  return JSON.stringify(body);
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, answer: ProblemAnswer): FastifyReply {
  return reply.send(prepareProblem(request, reply, answer));
}

function sendAppError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  return sendProblem(request, reply, answerOf(error));
}

const zodIssues = (part: string, error: ZodError | null): FieldIssue[] =>
  error ? fieldIssues(part, error.issues) : [];

function validationIssues(error: RequestValidationError): FieldIssue[] {
  return [
    ...zodIssues('params', error.pathParams),
    ...zodIssues('query', error.query),
    ...zodIssues('headers', error.headers),
    ...zodIssues('body', error.body),
  ];
}

/** Fastify's own 4xx errors (body parsing, limits, media types). */
function isClientError(error: FastifyError): boolean {
  return typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500;
}

function isMalformedJson(error: FastifyError): boolean {
  return (
    (error instanceof SyntaxError && error.statusCode === 400) ||
    error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    error.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
  );
}

/**
 * What a log line may say about a failed query: the SQLSTATE and the statement, never its parameters
 * (e-mails, password hashes, token hashes) nor the server's `detail` (which repeats key values).
 */
export function loggableError(error: unknown): unknown {
  const failed = error as { params?: unknown; cause?: { code?: unknown; message?: unknown } };
  if (!(error instanceof Error) || failed.params === undefined) return error;
  const statement = error.message.split('\nparams:')[0] ?? '';
  const frames = (error.stack ?? '').split('\n').filter((line) => line.startsWith('    at '));
  const safe = new Error(statement);
  safe.name = error.name;
  safe.stack = [`${error.name}: ${statement}`, ...frames].join('\n');
  return Object.assign(safe, {
    sqlState: failed.cause?.code,
    reason: typeof failed.cause?.message === 'string' ? failed.cause.message : undefined,
  });
}

function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): boolean {
  if (error.code === 'FST_ERR_BAD_URL') {
    sendProblem(request, reply, { code: 'BAD_REQUEST', detail: 'The URL is not valid percent-encoded text.' });
    return true;
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    const route = contractRouteOf(request);
    const expected = (route && 'contentType' in route ? route.contentType : undefined) ?? 'application/json';
    sendProblem(request, reply, { code: 'UNSUPPORTED_MEDIA_TYPE', detail: `Send the body as ${expected}.` });
    return true;
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendProblem(request, reply, { code: 'NOT_FOUND', detail: 'No resource has such an identifier.' });
    return true;
  }
  return false;
}

/**
 * The typed error itself, or one a wrapper carries as its `cause` (drizzle wraps whatever a query's hook threw in
 * "Failed query: …", as the idempotency commit hook's conflict is).
 */
function typedErrorIn(error: unknown): AppError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof AppError) return current;
    current = current.cause;
  }
  return null;
}

/** An answer for an error, whatever it is: the typed error itself, or 503 while the database is away, else null. */
function appErrorOf(error: unknown): AppError | null {
  return typedErrorIn(error) ?? (isDatabaseUnavailable(error) ? new DatabaseUnavailableError() : null);
}

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const typed = typedErrorIn(error);
  if (typed) return sendAppError(request, reply, typed);
  // PostgreSQL unreachable, shutting down or too slow (decision FO1): 503 with Retry-After, never a 500.
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: loggableError(error), method: request.method, path: request.url }, 'database unavailable');
    return sendAppError(request, reply, new DatabaseUnavailableError());
  }
  if (error instanceof RequestValidationError) {
    return sendAppError(request, reply, new ValidationFailedError(validationIssues(error)));
  }
  if (isMalformedJson(error)) {
    return sendProblem(request, reply, { code: 'MALFORMED_JSON', detail: 'The body is not valid JSON.' });
  }
  if (handleFrameworkError(error, request, reply)) return reply;
  if (isClientError(error)) {
    return sendProblem(request, reply, { code: clientErrorCode(error.statusCode as number), detail: error.message });
  }
  // A write that would take the member's amounts past what a JSON number holds (decision FI2), from any route.
  if (isAmountOutOfRange(error)) return sendAppError(request, reply, new AmountOutOfRangeError());
  // A value PostgreSQL cannot store (NUL in text, an out-of-range number) that validation let through:
  // still the client's input, so a 400; logged so the validation gets fixed.
  if (isDataException(error)) {
    request.log.warn(
      { err: loggableError(error), method: request.method, path: request.url },
      'value refused by the database',
    );
    return sendProblem(request, reply, {
      code: 'VALIDATION_FAILED',
      detail: 'A value in the request cannot be stored.',
    });
  }
  request.log.error(
    { err: loggableError(error), method: request.method, path: request.url },
    `unhandled error on ${request.method} ${request.url}`,
  );
  return sendProblem(request, reply, INTERNAL_ERROR);
}

/**
 * Errors Node's HTTP parser raises before a request exists (headers over the size limit, garbage on
 * the wire): answered as problem+json on the raw socket, with the same security headers.
 */
export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const problem = problemBody(
    error.code === 'HPE_HEADER_OVERFLOW'
      ? { code: 'REQUEST_HEADERS_TOO_LARGE', detail: 'The request line or headers are too large.' }
      : { code: 'BAD_REQUEST', detail: 'The request is not valid HTTP.' },
  );
  const body = JSON.stringify(problem);
  socket.end(
    [
      `HTTP/1.1 ${problem.status} ${problem.title}`,
      'content-type: application/problem+json',
      `content-length: ${Buffer.byteLength(body)}`,
      ...Object.entries(baselineSecurityHeaders).map(([name, value]) => `${name}: ${value}`),
      'connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

/** The problem for an error raised after the answer was chosen (an onSend hook): typed, 503 for the database, else 500. */
function lateProblem(error: unknown): ProblemAnswer {
  const typed = appErrorOf(error);
  return typed ? answerOf(typed) : INTERNAL_ERROR;
}

/**
 * For an onSend hook whose own work failed (storing an idempotent answer, say): logs the error without its
 * parameters and returns the payload to send instead, a problem+json body without internal text, with the
 * reply's status and headers set to match. An onSend hook that throws would instead reach Fastify's
 * default error handler, which answers `application/json` with the error's message (SQL and its
 * parameters included).
 */
export function problemInsteadOf(error: unknown, request: FastifyRequest, reply: FastifyReply): string {
  request.log.error(
    { err: loggableError(error), method: request.method, path: request.url },
    `${request.method} ${request.url}: failed while answering`,
  );
  return prepareProblem(request, reply, lateProblem(error));
}

const escapedErrors = new WeakMap<FastifyRequest, unknown>();

/** Called by the log controller when an error reached Fastify's default error handler (see `escapedErrorGuard`). */
export function noteEscapedError(request: FastifyRequest, error: unknown): void {
  escapedErrors.set(request, error);
}

/** The body Fastify's default and fallback error handlers send: `{ statusCode, code?, error, message }`. */
function isFrameworkErrorBody(payload: unknown): boolean {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return false;
  try {
    const body = JSON.parse(payload) as Record<string, unknown>;
    return (
      typeof body.statusCode === 'number' &&
      typeof body.message === 'string' &&
      Object.keys(body).every((key) => ['statusCode', 'code', 'error', 'message'].includes(key))
    );
  } catch {
    return false;
  }
}

/**
 * The last line of defence: when an error escapes the error handler (an onSend hook or the handler itself
 * failed while answering), Fastify answers with its own JSON error body, message included. This onSend
 * hook, which runs again for that body, replaces it with a problem+json answer without internal text.
 */
function escapedErrorGuard(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload: unknown) => void,
): void {
  done(null, guardedPayload(request, reply, payload));
}

function guardedPayload(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (reply.statusCode < 400 || String(reply.getHeader('content-type')).startsWith('application/problem+json')) {
    return payload;
  }
  if (!isFrameworkErrorBody(payload)) return payload;
  const error = escapedErrors.get(request) ?? new Error('an error escaped the error handler');
  escapedErrors.delete(request);
  const problem =
    !appErrorOf(error) && reply.statusCode < 500
      ? prepareProblem(request, reply, frameworkClientError(reply.statusCode))
      : problemInsteadOf(error, request, reply);
  sendProblemIfFailingAgain(reply, problem);
  return problem;
}

/** A client error Fastify answered itself: the code of its status, the status's title as the detail. */
function frameworkClientError(status: number): ProblemAnswer {
  const code = clientErrorCode(status);
  return { code, detail: titles[problemCodeStatus[code]] };
}

/**
 * A hook that failed once usually fails again on this second pass (the database is still away). Fastify
 * then writes its JSON error body straight to the socket, without hooks; this swaps that body (and its
 * type and length) for `problem` on the way out. Armed only once an error has escaped, for this reply.
 */
function sendProblemIfFailingAgain(reply: FastifyReply, problem: string): void {
  const raw = reply.raw;
  const writeHead = raw.writeHead.bind(raw) as (...args: unknown[]) => typeof raw;
  const end = raw.end.bind(raw) as (...args: unknown[]) => typeof raw;
  let swap = false;
  raw.writeHead = ((status: number, ...rest: unknown[]) => {
    const headers = rest.find((part) => typeof part === 'object' && part !== null) as
      | Record<string, string | number>
      | undefined;
    if (headers && status >= 400) {
      swap = true;
      headers['content-type'] = 'application/problem+json';
      headers['content-length'] = String(Buffer.byteLength(problem));
    }
    return writeHead(status, ...rest);
  }) as typeof raw.writeHead;
  raw.end = ((chunk?: unknown, ...rest: unknown[]) => {
    const body = Buffer.isBuffer(chunk) ? chunk.toString() : chunk;
    return end(swap && (body === problem || isFrameworkErrorBody(body)) ? problem : chunk, ...rest);
  }) as typeof raw.end;
}

export default fp(
  async (app) => {
    app.setErrorHandler(handleError);
    app.addHook('onSend', escapedErrorGuard);
  },
  { name: 'error-handler' },
);
