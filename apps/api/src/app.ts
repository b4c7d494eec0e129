import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '@nestegg/domain';
import { activeTracing } from '@nestegg/telemetry';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { type Env, publicUrlOf } from './env.js';
import { configureImageProcessing } from './lib/images.js';
import { loggerOptions, OneLinePerRequest } from './logger.js';
import { modules } from './modules/index.js';
import authentication from './plugins/authentication.js';
import errorHandler, { handleClientError, handleError } from './plugins/error-handler.js';
import health from './plugins/health.js';
import httpEdge from './plugins/http-edge.js';
import idempotency from './plugins/idempotency.js';
import infrastructure from './plugins/infrastructure.js';
import metrics from './plugins/metrics.js';
import openapi from './plugins/openapi.js';
import problemCodeCheck from './plugins/problem-code-check.js';
import rateLimit from './plugins/rate-limit.js';
import readRouting from './plugins/read-routing.js';
import unservedMethods from './plugins/unserved-methods.js';
import { nameServerSpans, tracedServerFactory, traceLogging } from './tracing.js';

declare module 'fastify' {
  interface FastifyInstance {
    env: Env;
  }
}

export interface BuildAppOptions {
  logger?: FastifyServerOptions['logger'];
  /** Where services read the time (tests set it). */
  clock?: Clock;
}

/** A hop count means "trust that many proxies in front of us", as Fastify does for numbers. */
function trustProxyOption(setting: Env['TRUST_PROXY']) {
  return typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : setting;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A client's request id is echoed and logged only when it cannot forge or break a log line. */
function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && SAFE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

const BODY_LIMIT_BYTES = 2 * 1024 * 1024;
/** Above any id's length, so an over-long path parameter reaches validation instead of a framework 414. */
const MAX_PARAM_LENGTH = 1000;

/** Builds the api without listening: the server starts it, tests `inject` into it. */
export async function buildApp(env: Env, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  // Tracing, when `startTracing` ran (the server, tests): a span per request, trace ids in its log lines.
  const tracing = activeTracing();
  const app = Fastify({
    ...traceLogging(options.logger ?? loggerOptions(env), tracing),
    trustProxy: trustProxyOption(env.TRUST_PROXY),
    requestIdHeader: false,
    genReqId: requestIdOf,
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    requestTimeout: env.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    connectionTimeout: env.HTTP_CONNECTION_TIMEOUT_MS,
    // Requests during the drain get our problem+json 503 instead (http-edge, decision FO31).
    return503OnClosing: false,
    frameworkErrors: handleError,
    logController: new OneLinePerRequest(),
    clientErrorHandler: handleClientError,
    ...(tracing ? { serverFactory: tracedServerFactory(tracing) } : {}),
  });
  if (tracing) nameServerSpans(app);
  app.decorate('env', env);
  configureImageProcessing({ threads: env.IMAGE_THREADS, cacheMb: env.IMAGE_CACHE_MB });
  // JSON is the only body the api reads (multipart uploads add their parser where they are taken): any other
  // type, text included, answers 415 instead of reaching validation as a string (C49).
  app.removeContentTypeParser('text/plain');

  await app.register(errorHandler);
  if (env.NODE_ENV === 'test') await app.register(problemCodeCheck);
  await app.register(httpEdge, { env });
  await app.register(unservedMethods);
  await app.register(infrastructure, { env, ...(options.clock ? { clock: options.clock } : {}) });
  await app.register(metrics);
  await app.register(authentication);
  await app.register(rateLimit);
  await app.register(idempotency);
  // Only with DATABASE_READ_URL: without it no hook runs and every read is the primary's, as before (DB20).
  if (app.readReplicas) await app.register(readRouting, { readReplicas: app.readReplicas });
  await app.register(health);
  if (env.API_DOCS_ENABLED) await app.register(openapi, { publicUrl: publicUrlOf(env) });
  for (const module of modules) await app.register(module);
  return app;
}
