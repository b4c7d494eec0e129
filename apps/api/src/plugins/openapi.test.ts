import { describe, expect } from 'vitest';
import { contractRoutes } from '../test/contract-routes.js';
import { apiTest } from '../test/fixtures.js';

const test = apiTest();

describe('OpenAPI document', () => {
  test('is served at /api/openapi.json and lists every route of the contract', async ({ app }) => {
    const response = await app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json() as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toMatch(/^3\./);
    const missing = contractRoutes()
      .map((route) => ({ method: route.method.toLowerCase(), path: route.path.replace(/:([A-Za-z]+)/g, '{$1}') }))
      .filter(({ method, path }) => !document.paths[path]?.[method])
      .map(({ method, path }) => `${method} ${path}`);
    expect(missing).toEqual([]);
  });

  test('has an interactive docs page titled after the service', async ({ app }) => {
    const response = await app.inject({ method: 'GET', url: '/api/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('<title>Nestegg API</title>');
  });

  test('serves the domain tags and the examples (C36, C38)', async ({ app }) => {
    const response = await app.inject({ method: 'GET', url: '/api/openapi.json' });
    const document = response.json() as {
      tags: Array<{ name: string }>;
      'x-tagGroups': Array<{ name: string; tags: string[] }>;
      components: { schemas: Record<string, { example?: unknown }> };
    };
    expect(document.tags.map((tag) => tag.name)).toContain('Card notifications');
    expect(document['x-tagGroups'].map((group) => group.name)).toContain('Ledger');
    expect(document.components.schemas.Entry?.example).toMatchObject({ amount: 12800, date: '2026-05-14' });
  });
});
