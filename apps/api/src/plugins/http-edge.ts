import { getHeapStatistics } from 'node:v8';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import underPressure from '@fastify/under-pressure';
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { Env } from '../env.js';
import { OverloadedError } from '../lib/errors.js';
import { API_CSP_DIRECTIVES } from '../lib/security-headers.js';

const CORS_MAX_AGE_SECONDS = 600;

/** Personal data and tokens must never sit in a shared cache; routes that may be cached say so themselves. */
function defaultToNoStore(reply: FastifyReply): void {
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
}

/**
 * What every response crosses: security headers (errors included), CORS for the configured origins,
 * and load shedding when the event loop or the heap is saturated. Routes opt out of shedding with
 * `config: { pressureHandler: () => undefined }` (the health checks do).
 */
export default fp<{ env: Env }>(
  async (app, { env }) => {
    await app.register(helmet, {
      global: true,
      contentSecurityPolicy: { useDefaults: false, directives: API_CSP_DIRECTIVES },
      xFrameOptions: { action: 'deny' },
    });
    app.addHook('onSend', async (_request, reply, payload) => {
      defaultToNoStore(reply);
      return payload;
    });
    await app.register(cors, {
      origin: env.CORS_ORIGINS.length > 0 ? env.CORS_ORIGINS : false,
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-request-id'],
      exposedHeaders: ['retry-after', 'x-request-id', 'location'],
      maxAge: CORS_MAX_AGE_SECONDS,
    });
    await app.register(underPressure, {
      maxEventLoopDelay: env.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
      maxEventLoopUtilization: env.OVERLOAD_MAX_EVENT_LOOP_UTILIZATION,
      // Utilization over the last sample, not since start: start-up work is not overload.
      eventLoopUtilizationMode: 'interval',
      maxHeapUsedBytes: env.OVERLOAD_MAX_HEAP_USED_BYTES || Math.floor(getHeapStatistics().heap_size_limit * 0.9),
      retryAfter: 5,
      customError: OverloadedError,
    });
  },
  { name: 'http-edge' },
);
