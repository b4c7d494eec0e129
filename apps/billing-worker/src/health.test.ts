import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHealthServer } from './health.js';

describe('worker health endpoints', () => {
  let close: (() => void) | undefined;
  afterEach(() => close?.());

  async function serve(isReady: () => Promise<boolean>) {
    const server = createHealthServer(isReady);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => server.close();
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('answers /healthz without asking the database, and /readyz with it', async () => {
    let asked = 0;
    const base = await serve(async () => {
      asked += 1;
      return false;
    });
    const live = await fetch(`${base}/healthz`);
    expect(live.status).toBe(200);
    expect(asked).toBe(0);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', failed: ['database'] });
    expect(asked).toBe(1);
  });

  it('answers /readyz 200 when the database answers, and 404 elsewhere', async () => {
    const base = await serve(async () => true);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/other`)).status).toBe(404);
  });
});
