import { installProcessFaultPolicy } from '@nestegg/db/process-faults';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { loadEnvOrExit } from './env.js';

const env = loadEnvOrExit();
const app = await buildApp(env);

let closing: Promise<void> | undefined;
const close = () => {
  closing ??= app.close();
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

await app.listen({ host: env.HOST, port: env.PORT });
