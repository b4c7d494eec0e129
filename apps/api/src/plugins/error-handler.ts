import { RequestValidationError } from '@ts-rest/fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ZodError } from 'zod';
import { AppError, type FieldIssue } from '../lib/errors.js';

interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
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
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const codesByStatus: Record<number, string> = {
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

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  problem: Omit<Problem, 'type' | 'title' | 'instance'>,
): FastifyReply {
  const body: Problem = {
    type: 'about:blank',
    title: titles[problem.status] ?? 'Error',
    instance: request.url.split('?')[0],
    ...problem,
  };
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
  if (isClientError(error)) {
    const status = error.statusCode as number;
    return sendProblem(request, reply, {
      status,
      code: codesByStatus[status] ?? 'BAD_REQUEST',
      detail: error.message,
    });
  }
  request.log.error(
    { err: error, method: request.method, path: request.url },
    `unhandled error on ${request.method} ${request.url}`,
  );
  return sendProblem(request, reply, {
    status: 500,
    code: 'INTERNAL_ERROR',
    detail: 'Something went wrong on our side. The error has been logged.',
  });
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
