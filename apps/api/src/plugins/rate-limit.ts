import { createRequire } from 'node:module';
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import { RateLimitedError } from '../lib/errors.js';
import type { RedisClient } from '../lib/redis.js';

type RedisStore = FastifyRateLimitStore & { key: string };
type RedisStoreClass = new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: RedisClient,
  key: string,
) => RedisStore;
/** What the plugin really hands `child`: the merged limiter options and the route, when it knows one. */
interface ChildOptions {
  continueExceeding: boolean;
  exponentialBackoff: boolean;
  routeInfo: { method?: string; url?: string };
}

// The plugin's own Redis store (its Lua scripts), not exported by name.
const PluginRedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as RedisStoreClass;

/**
 * The plugin's Redis store with readable keys. Its limiters made with `app.rateLimit(…)` know no route, and
 * the stock store then names their keys `undefinedundefined-<key>`: here such a limiter's key is the
 * namespace and its key generator's value (`rate-limit:signup:<ip>`), a route-config limiter's adds
 * `<METHOD> <url>:`.
 */
function namedRedisStore(redis: RedisClient, nameSpace: string): FastifyRateLimitStoreCtor {
  class NamedRedisStore extends PluginRedisStore {
    constructor(options: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      super(options.continueExceeding ?? false, options.exponentialBackoff ?? false, redis, nameSpace);
    }

    override child(options: unknown): FastifyRateLimitStore {
      const { continueExceeding, exponentialBackoff, routeInfo } = options as ChildOptions;
      const route = routeInfo.method ? `${routeInfo.method} ${routeInfo.url}:` : '';
      return new PluginRedisStore(continueExceeding, exponentialBackoff, redis, `${this.key}${route}`);
    }
  }
  // The plugin's types leave out the options its stores are really built with.
  return NamedRedisStore as unknown as FastifyRateLimitStoreCtor;
}

/**
 * @fastify/rate-limit, opt-in per route (`config.rateLimit`) or per hook (`app.rateLimit(…)`), counting in
 * Redis when there is one so the limit holds across api replicas. When Redis fails the request passes
 * (`skipOnError`).
 */
export default fp(
  async (app) => {
    await app.register(rateLimit, {
      global: false,
      ...(app.redis ? { store: namedRedisStore(app.redis, 'rate-limit:') } : {}),
      skipOnError: true,
      // On a 429 the error handler writes Retry-After and the X-RateLimit pair from the error (decision C50).
      addHeaders: {
        'x-ratelimit-limit': true,
        'x-ratelimit-remaining': false,
        'x-ratelimit-reset': false,
        'retry-after': false,
      },
      errorResponseBuilder: (_request, context) => new RateLimitedError(context.ttl / 1000),
    });
  },
  { name: 'rate-limit', dependencies: ['infrastructure'] },
);
