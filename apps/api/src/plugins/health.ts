import fp from 'fastify-plugin';
import { sendProblem } from './error-handler.js';

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function check(probe: () => Promise<unknown>): Promise<'ok' | string> {
  try {
    await withTimeout(probe(), 2000);
    return 'ok';
  } catch (error) {
    return error instanceof Error ? error.message : 'failed';
  }
}

const isHealthy = (state: string) => state === 'ok' || state === 'not configured';

/** Liveness must answer even while the instance sheds load, or the orchestrator would restart it. */
const neverShed = { pressureHandler: () => undefined };

/**
 * `/healthz`: the process is alive. `/readyz`: the database (and Redis, when configured) answer; a 503
 * names what failed and nothing more (the reasons go to the log).
 */
export default fp(
  async (app) => {
    app.get('/healthz', { config: neverShed }, async () => ({ status: 'ok' }));
    app.get('/readyz', async (request, reply) => {
      const checks = {
        database: await check(() => app.sql`select 1`),
        cache: app.redis ? await check(() => app.redis!.ping()) : 'not configured',
      };
      if (isHealthy(checks.database) && isHealthy(checks.cache)) return { status: 'ready', checks };
      request.log.warn({ checks }, 'not ready');
      const failed = Object.entries(checks)
        .filter(([, state]) => !isHealthy(state))
        .map(([name]) => name);
      return sendProblem(request, reply, {
        status: 503,
        code: 'NOT_READY',
        detail: `Not ready: ${failed.join(', ')}.`,
      });
    });
  },
  { name: 'health', dependencies: ['infrastructure'] },
);
