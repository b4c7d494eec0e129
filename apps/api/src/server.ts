import { installProcessFaultPolicy } from '@nestegg/db/process-faults';
import { startTracing } from '@nestegg/telemetry';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { loadEnvOrExit, metricsHostOf } from './env.js';
import { RedisTopologyError } from './lib/redis.js';
import { SERVICE_NAME, startupLogger } from './logger.js';
import { createMetricsServer } from './metrics-server.js';

const env = loadEnvOrExit();
// Before the app is built: its server, logger and database client trace only when this started (O10).
const tracing = await startTracing(`nestegg-${SERVICE_NAME}`);
const app = await buildApp(env).catch((error: unknown) => {
  if (!(error instanceof RedisTopologyError)) throw error;
  // A configuration error, not a fault: one line that names the variable to change, no stack (decision R7).
  startupLogger(env).fatal({ variable: error.variable }, error.message);
  process.exit(1);
});

const metricsServer =
  env.METRICS_PORT === 0
    ? undefined
    : createMetricsServer(app.metrics.registry, (err) => app.log.error({ err }, 'metrics scrape failed'));

let closing: Promise<void> | undefined;
const close = () => {
  metricsServer?.close();
  // The spans of the last requests are exported once the app has drained.
  closing ??= app.close().finally(() => tracing?.shutdown().catch(() => {}));
  return closing;
};
// Signals only. An error outside any request goes to the fault policy (decision FD2): it keeps serving through the
// database driver's connection faults, and drains (close) and exits with 1 on anything else.
const signals = closeWithGrace(
  { delay: 10_000, skip: ['uncaughtException', 'unhandledRejection'] },
  async ({ signal }) => {
    app.log.info({ signal }, 'shutting down');
    await close();
  },
);
installProcessFaultPolicy({
  logger: app.log,
  drain: () => {
    signals.uninstall();
    return close();
  },
});

// The metrics listener first: a port taken by another process stops the start before the api takes traffic.
if (metricsServer) {
  const host = metricsHostOf(env);
  await new Promise<void>((resolve, reject) => {
    metricsServer.once('error', reject);
    metricsServer.listen(env.METRICS_PORT, host, resolve);
  }).catch(async (error: unknown) => {
    app.log.fatal({ err: error, host, port: env.METRICS_PORT }, 'the metrics listener could not start (METRICS_PORT)');
    await app.close();
    process.exit(1);
  });
  app.log.info({ host, port: env.METRICS_PORT }, 'metrics on /metrics');
}
await app.listen({ host: env.HOST, port: env.PORT });
