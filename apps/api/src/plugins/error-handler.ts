import type { Socket } from 'node:net';
import type { ProblemCode } from '@nestegg/contract';
import { RequestValidationError } from '@ts-rest/fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ZodError } from 'zod';
import { AppError, type FieldIssue } from '../lib/errors.js';
import { AmountOutOfRangeError, isAmountOutOfRange, isDataException } from '../lib/pg-error.js';
import { baselineSecurityHeaders } from '../lib/security-headers.js';

interface Problem {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail?: string;
  instance?: string;
  errors?: FieldIssue[];
}

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const codesByStatus: Record<number, ProblemCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

function problemBody(
  status: number,
  code: ProblemCode,
  detail: string,
  instance?: string,
  errors?: FieldIssue[],
): Problem {
  return {
    type: 'about:blank',
    title: titles[status] ?? 'Error',
    status,
    code,
    detail,
    ...(instance ? { instance } : {}),
    ...(errors ? { errors } : {}),
  };
}

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  problem: Omit<Problem, 'type' | 'title' | 'instance'>,
): FastifyReply {
  const body = problemBody(
    problem.status,
    problem.code,
    problem.detail ?? '',
    request.url.split('?')[0],
    problem.errors,
  );
  for (const [name, value] of Object.entries(baselineSecurityHeaders)) {
    if (!reply.hasHeader(name)) reply.header(name, value);
  }
  return reply.status(problem.status).type('application/problem+json').send(JSON.stringify(body));
}

function zodIssues(part: string, error: ZodError | null): FieldIssue[] {
  if (!error) return [];
  return error.issues.map((issue) => ({ path: [part, ...issue.path].join('.'), message: issue.message }));
}

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
    sendProblem(request, reply, {
      status: 400,
      code: 'BAD_REQUEST',
      detail: 'The URL is not valid percent-encoded text.',
    });
    return true;
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendProblem(request, reply, { status: 404, code: 'NOT_FOUND', detail: 'No resource has such an identifier.' });
    return true;
  }
  return false;
}

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof AppError) {
    for (const [name, value] of Object.entries(error.extra.headers ?? {})) reply.header(name, value);
    return sendProblem(request, reply, {
      status: error.status,
      code: error.code,
      detail: error.message,
      ...(error.extra.errors ? { errors: error.extra.errors } : {}),
    });
  }
  if (error instanceof RequestValidationError) {
    return sendProblem(request, reply, {
      status: 400,
      code: 'VALIDATION_FAILED',
      detail: 'The request is not valid.',
      errors: validationIssues(error),
    });
  }
  if (isMalformedJson(error)) {
    return sendProblem(request, reply, { status: 400, code: 'MALFORMED_JSON', detail: 'The body is not valid JSON.' });
  }
  if (handleFrameworkError(error, request, reply)) return reply;
  if (isClientError(error)) {
    const status = error.statusCode as number;
    return sendProblem(request, reply, { status, code: codesByStatus[status] ?? 'BAD_REQUEST', detail: error.message });
  }
  // A write that would take the member's amounts past what a JSON number holds (decision FI2), from any route.
  if (isAmountOutOfRange(error)) {
    const refused = new AmountOutOfRangeError();
    return sendProblem(request, reply, { status: refused.status, code: refused.code, detail: refused.message });
  }
  // A value PostgreSQL cannot store (NUL in text, an out-of-range number) that validation let through:
  // still the client's input, so a 400; logged so the validation gets fixed.
  if (isDataException(error)) {
    request.log.warn(
      { err: loggableError(error), method: request.method, path: request.url },
      'value refused by the database',
    );
    return sendProblem(request, reply, {
      status: 400,
      code: 'VALIDATION_FAILED',
      detail: 'A value in the request cannot be stored.',
    });
  }
  request.log.error(
    { err: loggableError(error), method: request.method, path: request.url },
    `unhandled error on ${request.method} ${request.url}`,
  );
  return sendProblem(request, reply, {
    status: 500,
    code: 'INTERNAL_ERROR',
    detail: 'Something went wrong on our side. The error has been logged.',
  });
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
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify(
    problemBody(
      status,
      tooLarge ? 'REQUEST_HEADERS_TOO_LARGE' : 'BAD_REQUEST',
      tooLarge ? 'The request line or headers are too large.' : 'The request is not valid HTTP.',
    ),
  );
  socket.end(
    [
      `HTTP/1.1 ${status} ${titles[status]}`,
      'content-type: application/problem+json',
      `content-length: ${Buffer.byteLength(body)}`,
      ...Object.entries(baselineSecurityHeaders).map(([name, value]) => `${name}: ${value}`),
      'connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

export default fp(
  async (app) => {
    app.setErrorHandler(handleError);
    app.setNotFoundHandler((request, reply) =>
      sendProblem(request, reply, {
        status: 404,
        code: 'NOT_FOUND',
        detail: `No route ${request.method} ${request.url.split('?')[0]}.`,
      }),
    );
  },
  { name: 'error-handler' },
);
