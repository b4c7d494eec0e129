import { loadEnvOrExit } from './env.js';
import { createHealthServer } from './health.js';
import { createLogger } from './logger.js';
import { startWorker } from './worker.js';

const env = loadEnvOrExit();
const logger = createLogger(env);
const worker = await startWorker(env, logger);

const health = createHealthServer(() => worker.isReady());
health.listen(env.WORKER_HEALTH_PORT, env.WORKER_HOST, () =>
  logger.info({ port: env.WORKER_HEALTH_PORT }, 'worker health endpoints listening (/healthz, /readyz)'),
);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping billing worker');
  health.close();
  await worker.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
