import { getHeapStatistics } from 'node:v8';
import cors from '@fastify/cors';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Env } from '../env.js';
import { OverloadedError, ServiceUnavailableError } from '../lib/errors.js';
import { baselineSecurityHeaders } from '../lib/security-headers.js';

const CORS_MAX_AGE_SECONDS = 600;

/**
 * Load shedding on signals that mean users wait (decision FS2): the event loop's mean delay over the last
 * second, and a heap near its limit → 503 OVERLOADED with Retry-After. Event-loop utilisation is off by
 * default: a burst of password hashes keeps the loop busy while it still answers in milliseconds, and
 * shedding on it refused every read. Password hashing sheds its own waiters (the hash queue's bounds).
 */
async function registerShedding(app: FastifyInstance, env: Env): Promise<void> {
  await app.register(underPressure, {
    maxEventLoopDelay: env.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
    // 0 (the default) turns it off; when set, utilisation over the last sample, not since start.
    maxEventLoopUtilization: env.OVERLOAD_MAX_EVENT_LOOP_UTILIZATION,
    eventLoopUtilizationMode: 'interval',
    maxHeapUsedBytes: env.OVERLOAD_MAX_HEAP_USED_BYTES || Math.floor(getHeapStatistics().heap_size_limit * 0.9),
    // Counted by the signal that shed the request (`eventLoopDelay`, `heapUsedBytes`), then answered 503.
    pressureHandler: (request, _reply, type) => {
      request.server.metrics?.shedRequests.inc({ reason: String(type) });
      return Promise.reject(new OverloadedError());
    },
  });
}

/**
 * Every request's security headers and `x-request-id`, set as it arrives. While the api drains (from
 * `close()` on), a request that still arrives on an open connection answers 503
 * `SERVICE_UNAVAILABLE` problem+json with `Retry-After` and `Connection: close`, so the client retries on
 * another replica (decision FO31). Fastify's own answer there (`return503OnClosing`) is plain JSON.
 */
function edgeHook(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  // One hook for every request: headers first, so that a refusal carries them too.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(baselineSecurityHeaders);
    reply.header('x-request-id', request.id);
    if (!draining) return done();
    reply.header('connection', 'close');
    done(new ServiceUnavailableError('SERVICE_UNAVAILABLE', 'This instance is shutting down. Try again.', 1));
  });
}

/**
 * What every response crosses: security headers (errors included), CORS for the configured origins,
 * and load shedding when the event loop or the heap is saturated. Routes opt out of shedding with
 * `config: { pressureHandler: () => undefined }` (the health checks do).
 */
export default fp<{ env: Env }>(
  async (app, { env }) => {
    edgeHook(app);
    // No origin configured: no CORS handling at all (a browser on another origin is refused).
    if (env.CORS_ORIGINS.length === 0) return registerShedding(app, env);
    await app.register(cors, {
      origin: env.CORS_ORIGINS,
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-request-id'],
      exposedHeaders: [
        'retry-after',
        'x-request-id',
        'location',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
      ],
      maxAge: CORS_MAX_AGE_SECONDS,
    });
    await registerShedding(app, env);
  },
  { name: 'http-edge' },
);
