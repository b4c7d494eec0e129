import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import { RateLimitedError } from '../lib/errors.js';

/**
 * @fastify/rate-limit, opt-in per route (`config.rateLimit`), counting in Redis when there is one so the
 * limit holds across api replicas. When Redis fails the request passes (`skipOnError`).
 */
export default fp(
  async (app) => {
    await app.register(rateLimit, {
      global: false,
      ...(app.redis ? { redis: app.redis, nameSpace: 'rate-limit:' } : {}),
      skipOnError: true,
      errorResponseBuilder: (_request, context) => new RateLimitedError(context.ttl / 1000),
    });
  },
  { name: 'rate-limit', dependencies: ['infrastructure'] },
);
