import { createRequire } from 'node:module';
import { activeTracing, traceFields } from '@nestegg/telemetry';
import { type Logger, pino } from 'pino';
import type { WorkerEnv } from './env.js';

export const SERVICE_NAME = 'billing-worker';

/** pino-pretty only in development on a terminal; JSON lines everywhere else (log collectors read those). */
function prettyTransport(env: WorkerEnv) {
  if (env.NODE_ENV !== 'development' || !process.stdout.isTTY) return undefined;
  try {
    return { target: createRequire(import.meta.url).resolve('pino-pretty') };
  } catch {
    return undefined;
  }
}

export function createLogger(env: WorkerEnv): Logger {
  const transport = prettyTransport(env);
  return pino({
    name: SERVICE_NAME,
    level: env.LOG_LEVEL,
    ...(transport ? { transport } : {}),
    // trace_id and span_id on every line written inside a span (a job's), when tracing runs (decision O13).
    ...(activeTracing() ? { mixin: traceFields } : {}),
  });
}
