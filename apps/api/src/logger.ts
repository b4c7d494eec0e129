import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';
import type { Env } from './env.js';

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

/** The api's logger: its service name on every line, credentials redacted. */
export function loggerOptions(env: Env): FastifyServerOptions['logger'] {
  const transport = prettyTransport(env);
  return {
    name: SERVICE_NAME,
    level: env.LOG_LEVEL,
    redact: ['req.headers.authorization', 'req.headers.cookie'],
    ...(transport ? { transport } : {}),
  };
}
