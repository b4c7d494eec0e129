import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { pingRedis } from '../lib/redis.js';
import { sendProblem } from './error-handler.js';

/** One dependency as readiness sees it; the reason a probe failed goes to the log, never to the answer. */
export type DependencyState = 'ok' | 'down' | 'not configured';

/**
 * Decision FS3: readiness is "can serve". `ready`: every configured dependency answers. `degraded`: the
 * instance serves every request, through a fallback for the dependencies in `degraded` (Redis down →
 * sessions from their PostgreSQL backup, attempt counters let requests pass). `not ready`: a dependency
 * without a fallback (the database) is down.
 */
export interface Readiness {
  status: 'ready' | 'degraded' | 'not ready';
  checks: { database: DependencyState; cache: DependencyState };
  /** Dependencies that are down while their fallback serves (empty unless `degraded`). */
  degraded: Array<'cache'>;
  /** Dependencies that are down with no fallback (empty unless `not ready`). */
  failed: Array<'database' | 'cache'>;
  checkedAt: Date;
}

/** What a metrics layer reads: the dependency states, probed now or as of the last probe. */
export interface ReadinessSource {
  /** Probes the database and Redis now (what `/readyz` answers). */
  check(): Promise<Readiness>;
  /** The last probe's outcome (`/readyz` or `check()`); undefined before the first. */
  last(): Readiness | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    readiness: ReadinessSource;
  }
}

const PROBE_TIMEOUT_MS = 2000;

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

interface Probed {
  state: DependencyState;
  reason?: string;
}

async function probe(run: () => Promise<unknown>): Promise<Probed> {
  try {
    await withTimeout(run(), PROBE_TIMEOUT_MS);
    return { state: 'ok' };
  } catch (error) {
    return { state: 'down', reason: error instanceof Error ? error.message : 'failed' };
  }
}

/** Probes both dependencies at once (a frozen Redis must not delay the database's answer). */
function readinessOf(app: FastifyInstance): ReadinessSource {
  let last: Readiness | undefined;
  const { redis } = app;
  return {
    last: () => last,
    async check() {
      const notConfigured: Probed = { state: 'not configured' };
      const [database, cache] = await Promise.all([
        probe(() => app.sql`select 1`),
        redis ? probe(() => pingRedis(redis)) : notConfigured,
      ]);
      const checks = { database: database.state, cache: cache.state };
      const databaseDown = database.state === 'down';
      const cacheDown = cache.state === 'down';
      // Redis's fallback is the PostgreSQL backup: it serves only while the database does.
      const failed: Readiness['failed'] = databaseDown ? (cacheDown ? ['database', 'cache'] : ['database']) : [];
      const degraded: Readiness['degraded'] = !databaseDown && cacheDown ? ['cache'] : [];
      const status = databaseDown ? 'not ready' : cacheDown ? 'degraded' : 'ready';
      if (status !== 'ready') {
        const reasons = { database: database.reason, cache: cache.reason };
        app.log.warn({ checks, reasons }, status === 'degraded' ? 'degraded: serving through fallbacks' : 'not ready');
      }
      last = { status, checks, degraded, failed, checkedAt: new Date() };
      return last;
    },
  };
}

/**
 * Liveness must answer even while the instance sheds load, or the orchestrator would restart it. Probes run
 * every few seconds per replica: only those that fail are logged (decision P26).
 */
const liveness = { pressureHandler: () => undefined, logFailuresOnly: true };
const readiness = { logFailuresOnly: true };

/**
 * `/healthz`: the process is alive. `/readyz`: the instance can serve: 200 `ready`, or 200 `degraded`
 * naming what it serves around (Redis down, sessions from PostgreSQL); 503 `NOT_READY` naming what failed
 * (the database) and nothing more (the reasons go to the log).
 */
export default fp(
  async (app) => {
    app.decorate('readiness', readinessOf(app));
    app.metrics.observeDependencies(async () => (await app.readiness.check()).checks);
    app.get('/healthz', { config: liveness }, async () => ({ status: 'ok' }));
    app.get('/readyz', { config: readiness }, async (request, reply) => {
      const { status, checks, degraded, failed } = await app.readiness.check();
      if (status === 'ready') return { status, checks };
      if (status === 'degraded') return { status, degraded, checks };
      return sendProblem(request, reply, { code: 'NOT_READY', detail: `Not ready: ${failed.join(', ')}.` });
    });
  },
  { name: 'health', dependencies: ['infrastructure'] },
);
