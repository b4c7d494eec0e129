import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { loadEnvOrExit } from './env.js';

const env = loadEnvOrExit();
const app = await buildApp(env);

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error');
  else app.log.info({ signal }, 'shutting down');
  await app.close();
});

await app.listen({ host: env.HOST, port: env.PORT });
