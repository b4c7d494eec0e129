import { installProcessFaultPolicy } from '@nestegg/db/process-faults';
import { startTracing } from '@nestegg/telemetry';
import { loadEnvOrExit } from './env.js';
import { createHealthServer } from './health.js';
import { createLogger, SERVICE_NAME } from './logger.js';
import { startWorker } from './worker.js';

const env = loadEnvOrExit();
// Before the logger and the worker: they trace only when this started (decision O10).
const tracing = await startTracing(`nestegg-${SERVICE_NAME}`);
const logger = createLogger(env);
const worker = await startWorker(env, logger);

const health = createHealthServer(() => worker.isReady(), worker.metrics.registry);
health.listen(env.WORKER_HEALTH_PORT, env.WORKER_HOST, () =>
  logger.info({ port: env.WORKER_HEALTH_PORT }, 'worker health endpoints listening (/healthz, /readyz)'),
);

let stopping: Promise<void> | undefined;
function stop(): Promise<void> {
  stopping ??= (async () => {
    health.close();
    await worker.stop();
    await tracing?.shutdown().catch(() => {});
  })();
  return stopping;
}
async function shutdown(signal: string) {
  if (stopping) return;
  logger.info({ signal }, 'stopping billing worker');
  await stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
// An error outside any job (decision FD2): logged and survived when it comes from the database driver's connection
// machinery; anything else stops the worker (pg-boss lets running jobs finish for up to 10 s) and exits with 1.
installProcessFaultPolicy({ logger, drain: stop, drainTimeoutMs: 15_000 });
