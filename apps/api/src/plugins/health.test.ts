import { describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadEnv } from '../env.js';
import { useTestApp } from '../test/app.js';

describe('health checks', () => {
  const app = useTestApp();

  it('/healthz answers while the process runs', async () => {
    const response = await app.current.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('/readyz is ready when the database and Redis answer', async () => {
    const response = await app.current.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', checks: { database: 'ok', cache: 'ok' } });
  });

  it('/readyz fails with 503 when the database is unreachable', async () => {
    const unreachable = await buildApp(
      loadEnv({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere', LOG_LEVEL: 'silent' }),
    );
    try {
      const response = await unreachable.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      // What failed, and nothing of the internal error (addresses, driver messages) that the log keeps.
      expect(response.json()).toMatchObject({ code: 'NOT_READY', detail: 'Not ready: database.' });
      expect(response.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|timed out/);
    } finally {
      await unreachable.close();
    }
  });
});
