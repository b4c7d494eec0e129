import { afterAll, describe, expect, it } from 'vitest';
import { startFakeServer } from './fake-server.js';
import { createTestRedis } from './redis.js';

describe('fake provider server', () => {
  it('answers configured routes, records requests, and 404s the rest', async () => {
    const server = await startFakeServer({
      'GET /rates': (request) => ({ body: { from: request.query.get('from') } }),
    });
    try {
      const hit = await fetch(`${server.url}/rates?from=USD`);
      expect(await hit.json()).toEqual({ from: 'USD' });
      expect((await fetch(`${server.url}/missing`)).status).toBe(404);
      server.on('POST /verify', () => ({ status: 202, body: 'accepted' }));
      const posted = await fetch(`${server.url}/verify`, { method: 'POST', body: 'token=1' });
      expect(posted.status).toBe(202);
      expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        'GET /rates',
        'GET /missing',
        'POST /verify',
      ]);
      expect(server.requests[2]!.body).toBe('token=1');
    } finally {
      await server.close();
    }
  });
});

describe('redis key prefix per test file', () => {
  const fixtures: Awaited<ReturnType<typeof createTestRedis>>[] = [];
  afterAll(async () => {
    for (const fixture of fixtures) await fixture.cleanup();
  });

  it('keeps two prefixes apart and deletes only its own keys on cleanup', async () => {
    const first = await createTestRedis();
    const second = await createTestRedis();
    fixtures.push(second);
    await first.client.set('shared-name', 'one');
    await second.client.set('shared-name', 'two');
    expect(await first.client.get('shared-name')).toBe('one');
    await first.cleanup();
    expect(await second.client.get('shared-name')).toBe('two');
  });
});
