import { appSetting } from '@nestegg/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemberWithSession, type TestMember, useTestApp } from '../../test/app.js';

const app = useTestApp();
const url = '/api/admin/settings/signup';

let admin: TestMember;
let free: TestMember;
let premium: TestMember;

beforeAll(async () => {
  admin = await createMemberWithSession(app.current, { role: 'ADMIN' });
  free = await createMemberWithSession(app.current, { plan: 'FREE' });
  premium = await createMemberWithSession(app.current, { plan: 'PREMIUM' });
});

const get = (caller: TestMember | null = admin) =>
  app.current.inject({ method: 'GET', url, headers: caller?.headers ?? {} });
const put = (payload: unknown, caller: TestMember | null = admin) =>
  app.current.inject({ method: 'PUT', url, payload: payload as object, headers: caller?.headers ?? {} });

describe('sign-up switch', () => {
  it('is open while no admin has closed it', async () => {
    const response = await get();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ enabled: true });
  });

  it('guards both routes: anonymous → 401, FREE and PREMIUM → 403, and the setting stays', async () => {
    for (const [caller, status] of [
      [null, 401],
      [free, 403],
      [premium, 403],
    ] as const) {
      expect((await get(caller)).statusCode).toBe(status);
      expect((await put({ enabled: false }, caller)).statusCode).toBe(status);
    }
    expect(await app.current.db.select().from(appSetting)).toEqual([]);
    expect((await get()).json()).toEqual({ enabled: true });
  });

  it('closes and reopens sign-up; the public sign-up-enabled answer follows', async () => {
    const closed = await put({ enabled: false });
    expect(closed.statusCode).toBe(200);
    expect(closed.json()).toEqual({ enabled: false });
    expect((await get()).json()).toEqual({ enabled: false });
    const publicAnswer = await app.current.inject({ method: 'GET', url: '/api/auth/signup-enabled' });
    expect(publicAnswer.statusCode).toBe(200);
    expect(publicAnswer.json()).toEqual({ enabled: false });

    const reopened = await put({ enabled: true });
    expect(reopened.json()).toEqual({ enabled: true });
    expect((await get()).json()).toEqual({ enabled: true });
    const rows = await app.current.db.select().from(appSetting);
    expect(rows.map((row) => [row.key, row.value])).toEqual([['signup_enabled', true]]);
  });

  it('rejects a body without a boolean with 400', async () => {
    for (const payload of [{}, { enabled: 'false' }, { enabled: 1 }]) {
      const response = await put(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
  });
});
