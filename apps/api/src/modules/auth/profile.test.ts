import { member, pointHistory } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/app.js';
import { signUpAndLogIn } from '../../test/auth-helpers.js';

// A real 1×1 PNG.
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

describe('profile, picture and points', () => {
  const app = useTestApp({ PROFILE_IMAGE_MAX_BYTES: '2048' });
  const get = (url: string, headers: Record<string, string>) => app.current.inject({ method: 'GET', url, headers });

  it('shows the latest state without a new login', async () => {
    const { headers, member: created } = await signUpAndLogIn(app.current);
    await app.current.db.update(member).set({ points: 42, plan: 'PREMIUM' }).where(eq(member.id, created.id));
    const profile = await get('/api/auth/profile', headers);
    expect(profile.json()).toMatchObject({
      id: created.id,
      points: 42,
      plan: 'PREMIUM',
      idpOnePicture: null,
      profileImage: null,
    });
    expect(profile.json()).not.toHaveProperty('passwordHash');
  });

  it('updates the display name', async () => {
    const { headers } = await signUpAndLogIn(app.current, { displayName: 'Old' });
    const response = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/profile',
      headers,
      payload: { displayName: '  New name ' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().displayName).toBe('New name');
    expect((await get('/api/auth/profile', headers)).json().displayName).toBe('New name');
  });

  it('stores a real image as a data URL and clears it with an empty value', async () => {
    const { headers } = await signUpAndLogIn(app.current);
    const dataUrl = `data:image/png;base64,${PNG_1X1}`;
    const set = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/profile-image',
      headers,
      payload: { dataUrl },
    });
    expect(set.statusCode).toBe(200);
    expect(set.json().profileImage).toBe(dataUrl);
    const cleared = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/profile-image',
      headers,
      payload: { dataUrl: '' },
    });
    expect(cleared.json().profileImage).toBeNull();
  });

  it('refuses data that is not the declared image type, and images over the limit', async () => {
    const { headers } = await signUpAndLogIn(app.current);
    const fake = Buffer.from('<svg onload="alert(1)"></svg>').toString('base64');
    const notPng = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/profile-image',
      headers,
      payload: { dataUrl: `data:image/png;base64,${fake}` },
    });
    expect(notPng.statusCode).toBe(400);
    expect(notPng.json().code).toBe('INVALID_IMAGE');
    const svg = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/profile-image',
      headers,
      payload: { dataUrl: `data:image/svg+xml;base64,${fake}` },
    });
    expect(svg.statusCode).toBe(400);
    const big = Buffer.concat([Buffer.from(PNG_1X1, 'base64'), Buffer.alloc(4096)]).toString('base64');
    const tooLarge = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/profile-image',
      headers,
      payload: { dataUrl: `data:image/png;base64,${big}` },
    });
    expect(tooLarge.statusCode).toBe(400);
    expect(tooLarge.json().code).toBe('IMAGE_TOO_LARGE');
  });

  it('reports the balance and at most 100 history entries, newest first, of the caller only', async () => {
    const owner = await signUpAndLogIn(app.current);
    const other = await signUpAndLogIn(app.current);
    const base = Date.now() - 200_000;
    await app.current.db.insert(pointHistory).values(
      Array.from({ length: 105 }, (_, index) => ({
        memberId: owner.member.id,
        amount: index + 1,
        reason: `REASON_${index + 1}`,
        createdAt: new Date(base + index * 1000),
      })),
    );
    await app.current.db.insert(pointHistory).values({ memberId: other.member.id, amount: 7, reason: 'OTHER' });
    await app.current.db.update(member).set({ points: 15 }).where(eq(member.id, owner.member.id));

    expect((await get('/api/auth/points', owner.headers)).json()).toEqual({ points: 15 });
    const history = (await get('/api/auth/point-history', owner.headers)).json().items as { reason: string }[];
    expect(history).toHaveLength(100);
    expect(history[0]!.reason).toBe('REASON_105');
    expect(history.at(-1)!.reason).toBe('REASON_6');
    expect(history.some((item) => item.reason === 'OTHER')).toBe(false);
    expect((await get('/api/auth/point-history', other.headers)).json().items).toHaveLength(1);
  });
});
