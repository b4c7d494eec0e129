import { createServer } from 'node:http';
import { pino } from 'pino';
import { loadEnv } from './env.js';
import { startWorker } from './worker.js';

let env;
try {
  env = loadEnv();
} catch (error) {
  console.error(`nestegg-billing-worker: ${(error as Error).message}`);
  process.exit(1);
}

const logger = pino({ level: env.LOG_LEVEL, name: 'billing-worker' });
const worker = await startWorker(env, logger);

// Liveness for orchestrators: 200 while the worker runs and reaches its database.
const health = createServer((request, response) => {
  void (async () => {
    const status = request.url !== '/healthz' ? 404 : (await worker.isHealthy()) ? 200 : 503;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ status: status === 200 ? 'ok' : status === 404 ? 'not found' : 'unavailable' }));
  })();
});
health.listen(env.WORKER_HEALTH_PORT, env.WORKER_HOST, () =>
  logger.info({ port: env.WORKER_HEALTH_PORT }, 'worker health endpoint listening'),
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
