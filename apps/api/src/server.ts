import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { InvalidEnvironmentError, loadEnv } from './env.js';

function readEnv() {
  try {
    return loadEnv();
  } catch (error) {
    if (error instanceof InvalidEnvironmentError) {
      console.error(`nestegg-api: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

const env = readEnv();
const app = await buildApp(env);

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error');
  else app.log.info({ signal }, 'shutting down');
  await app.close();
});

await app.listen({ host: env.HOST, port: env.PORT });
