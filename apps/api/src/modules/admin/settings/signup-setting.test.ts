import { appSetting } from '@nestegg/db';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';

describe('sign-up switch', () => {
  test('is open while no admin has closed it', async ({ admin }) => {
    expect(bodyOf(await admin.api.admin.getSignupSetting(), 200)).toEqual({ enabled: true });
  });

  test('guards both routes: anonymous → 401, FREE and PREMIUM → 403, and the setting stays', async ({
    app,
    anonymous,
    free,
    premium,
    admin,
  }) => {
    for (const [api, status] of [
      [anonymous, 401],
      [free.api, 403],
      [premium.api, 403],
    ] as const) {
      expect((await api.admin.getSignupSetting()).status).toBe(status);
      expect((await api.admin.setSignupSetting({ body: { enabled: false } })).status).toBe(status);
    }
    expect(await app.db.select().from(appSetting)).toEqual([]);
    expect(bodyOf(await admin.api.admin.getSignupSetting(), 200)).toEqual({ enabled: true });
  });

  test('closes and reopens sign-up; the public sign-up-enabled answer follows', async ({ app, anonymous, admin }) => {
    expect(bodyOf(await admin.api.admin.setSignupSetting({ body: { enabled: false } }), 200)).toEqual({
      enabled: false,
    });
    expect(bodyOf(await admin.api.admin.getSignupSetting(), 200)).toEqual({ enabled: false });
    expect(bodyOf(await anonymous.auth.signupEnabled(), 200)).toEqual({ enabled: false });

    expect(bodyOf(await admin.api.admin.setSignupSetting({ body: { enabled: true } }), 200)).toEqual({ enabled: true });
    expect(bodyOf(await anonymous.auth.signupEnabled(), 200)).toEqual({ enabled: true });
    const rows = await app.db.select().from(appSetting);
    expect(rows.map((row) => [row.key, row.value])).toEqual([['signup_enabled', true]]);
  });

  test('rejects a body without a boolean with 400', async ({ admin }) => {
    for (const body of [{}, { enabled: 'false' }, { enabled: 1 }]) {
      problemOf(await admin.api.admin.setSignupSetting({ body: body as never }), 400, 'VALIDATION_FAILED');
    }
  });
});
