import { createRequire } from 'node:module';
import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import pino from 'pino';
import type { Env } from './env.js';
import { loggableError, noteEscapedError } from './plugins/error-handler.js';

export const SERVICE_NAME = 'api';

/** pino-pretty only in development on a terminal; JSON lines everywhere else (log collectors read those). */
function prettyTransport(env: Env) {
  if (env.NODE_ENV !== 'development' || !process.stdout.isTTY) return undefined;
  try {
    return { target: createRequire(import.meta.url).resolve('pino-pretty') };
  } catch {
    return undefined;
  }
}

/** Lines are written out once this many bytes wait, or after `LOG_FLUSH_MS` (decision P23). */
const LOG_BUFFER_BYTES = 4096;
export const LOG_FLUSH_MS = 1000;
let bufferedStdout: pino.DestinationStream | undefined;

/**
 * Standard output, buffered and written asynchronously: a request's line costs a copy instead of a
 * `write(2)` of its own (decision P23). Written out every `LOG_FLUSH_MS`, and synchronously when the process
 * exits (pino registers the flush), so an exit after a fatal error keeps its last lines. One per process.
 */
export function logDestination(): pino.DestinationStream {
  bufferedStdout ??= pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_BUFFER_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
  return bufferedStdout;
}

/** The api's logger: its service name on every line, credentials redacted. */
export function loggerOptions(env: Env): FastifyServerOptions['logger'] {
  const transport = prettyTransport(env);
  return {
    name: SERVICE_NAME,
    level: env.LOG_LEVEL,
    redact: ['req.headers.authorization', 'req.headers.cookie'],
    ...(transport ? { transport } : { stream: logDestination() }),
  };
}

/**
 * For a start that fails before the app (and its logger) exists: the api's name and level, written at once,
 * since the process exits right after.
 */
export function startupLogger(env: Env): pino.Logger {
  return pino({ name: SERVICE_NAME, level: env.LOG_LEVEL }, pino.destination({ dest: 1, sync: true }));
}

/** A route's `config`: `logFailuresOnly` leaves its successful answers unlogged (health probes, P26). */
interface QuietRoute {
  logFailuresOnly?: boolean;
}

/**
 * One line per request, written when it ends, instead of Fastify's two. The path only: query strings can
 * carry personal data (a searched e-mail).
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (!error && reply.statusCode < 400 && (request.routeOptions?.config as QuietRoute | undefined)?.logFailuresOnly)
      return;
    const line = {
      method: request.method,
      path: request.url.split('?')[0],
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
    };
    // Called after the answer went out, outside any error handling: a failing line must not become an
    // unhandled rejection (decision FO2). An onResponse hook's error is logged without SQL parameters.
    try {
      if (error) request.log.error({ ...line, err: loggableError(error) }, 'request errored');
      else request.log.info(line, 'request');
    } catch {}
  }

  /**
   * An error that escaped the error handler (an onSend hook failed while answering) reached Fastify's
   * default handler: logged without SQL parameters, and noted so that the error handler's last-resort
   * onSend hook answers problem+json for it (decision FO2).
   */
  override defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    noteEscapedError(request, error);
    request.log.error(
      { method: request.method, path: request.url.split('?')[0], status: reply.statusCode, err: loggableError(error) },
      'error escaped the error handler',
    );
  }
}
