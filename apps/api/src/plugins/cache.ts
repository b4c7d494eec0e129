import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import { type CounterStore, MemoryCounterStore, RedisCounterStore } from '../lib/counter-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The fast store; null when the api runs without REDIS_URL (sessions then live in Postgres only). */
    redis: Redis | null;
    counters: CounterStore;
  }
}

export interface CachePluginOptions {
  url?: string;
  keyPrefix: string;
}

export default fp<CachePluginOptions>(
  async (app, options) => {
    if (!options.url) {
      app.log.warn('REDIS_URL is not set: sessions use their Postgres backup only, counters live in memory');
      app.decorate('redis', null);
      app.decorate('counters', new MemoryCounterStore());
      return;
    }
    const redis = new Redis(options.url, {
      keyPrefix: options.keyPrefix,
      lazyConnect: true,
      // Fail fast instead of queueing while Redis is away: callers fall back (sessions to Postgres,
      // login counters let the request pass), as the spec asks.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
      connectTimeout: 5000,
    });
    redis.on('error', (error) => app.log.warn({ err: error }, 'redis error'));
    await redis.connect();
    app.decorate('redis', redis);
    app.decorate('counters', new RedisCounterStore(redis));
    app.addHook('onClose', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
  },
  { name: 'cache' },
);
