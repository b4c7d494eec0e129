import { contract, listRoutes } from '@nestegg/contract';
import { describe, expect } from 'vitest';
import { InvalidEnvironmentError, loadEnv } from '../env.js';
import { bodyOf } from '../test/client.js';
import { test } from '../test/fixtures.js';
import { READ_ROUTES } from './read-routing.js';

/** Decision DB20: the routes a replica may serve, and an api without `DATABASE_READ_URL` (the read-replicas test has them). */
describe('read routing', () => {
  test('every route of the table is a GET route of the contract', () => {
    const served = new Set(listRoutes(contract).map(({ route }) => `${route.method} ${route.path}`));
    for (const key of Object.keys(READ_ROUTES)) {
      expect(key.startsWith('GET '), key).toBe(true);
      expect(served.has(key), key).toBe(true);
    }
  });

  test('without DATABASE_READ_URL nothing is opened, probed or hooked, and every read is the primary’s', async ({
    app,
    free,
  }) => {
    expect(app.readReplicas).toBeNull();
    expect(app.hasPlugin('read-routing')).toBe(false);
    expect(app.services.statistics.deps.reader).toBe(app.db);
    bodyOf(await free.api.board.listPosts({ query: {} }), 200);
    const metrics = await app.metrics.registry.getMetricsAsJSON();
    const samples = metrics.filter((metric) => metric.name.startsWith('nestegg_db_read'));
    expect(samples.flatMap((metric) => metric.values)).toEqual([]);
  });

  test('DATABASE_READ_URL is validated at start, naming the variable', () => {
    const issuesOf = (url: string) => {
      try {
        loadEnv({ DATABASE_URL: 'postgres://localhost/x', DATABASE_READ_URL: url });
        return [];
      } catch (error) {
        if (error instanceof InvalidEnvironmentError) return error.issues;
        throw error;
      }
    };
    expect(issuesOf('postgres://u@r1,r2/db?target_session_attrs=read-write').join('\n')).toMatch(
      /DATABASE_READ_URL: target_session_attrs=read-write/,
    );
    expect(issuesOf('postgres://u@r1:5433,r2/db?target_session_attrs=prefer-standby')).toEqual([]);
  });
});
