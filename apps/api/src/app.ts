import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { type Env, publicUrlOf } from './env.js';
import { modules } from './modules/index.js';
import authentication from './plugins/authentication.js';
import cache from './plugins/cache.js';
import database from './plugins/database.js';
import errorHandler from './plugins/error-handler.js';
import health from './plugins/health.js';
import openapi from './plugins/openapi.js';
import points from './plugins/points.js';
import rateLimit from './plugins/rate-limit.js';

declare module 'fastify' {
  interface FastifyInstance {
    env: Env;
  }
}

export interface BuildAppOptions {
  logger?: FastifyServerOptions['logger'];
}

function loggerFor(env: Env): FastifyServerOptions['logger'] {
  return {
    level: env.LOG_LEVEL,
    redact: ['req.headers.authorization', 'req.headers.cookie'],
  };
}

/** A hop count means "trust that many proxies in front of us", as Fastify does for numbers. */
function trustProxyOption(setting: Env['TRUST_PROXY']) {
  return typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : setting;
}

/** Builds the api without listening: the server starts it, tests `inject` into it. */
export async function buildApp(env: Env, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? loggerFor(env),
    trustProxy: trustProxyOption(env.TRUST_PROXY),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    bodyLimit: 2 * 1024 * 1024,
  });
  app.decorate('env', env);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(errorHandler);
  await app.register(database, { url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE });
  await app.register(cache, { url: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX });
  await app.register(authentication, { sessionTtlSeconds: env.SESSION_TTL_HOURS * 3600 });
  await app.register(rateLimit);
  await app.register(points);
  await app.register(health);
  await app.register(openapi, { publicUrl: publicUrlOf(env) });
  for (const module of modules) await app.register(module);
  return app;
}
