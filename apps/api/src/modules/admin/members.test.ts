import { randomBytes } from 'node:crypto';
import { authSession, category, member, pointHistory } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemberWithSession, type TestMember, useTestApp } from '../../test/app.js';
import { PasswordHasher } from '../auth/passwords.js';

const hasher = new PasswordHasher();

import { likeContains } from '../../lib/sql-like.js';
import { hashToken, sessionCacheKeys } from '../auth/session.store.js';

const app = useTestApp();

let admin: TestMember;
let free: TestMember;
let premium: TestMember;

beforeAll(async () => {
  admin = await createMemberWithSession(app.current, { role: 'ADMIN' });
  free = await createMemberWithSession(app.current, { plan: 'FREE' });
  premium = await createMemberWithSession(app.current, { plan: 'PREMIUM' });
});

const memberRow = async (id: number) => {
  const [row] = await app.current.db.select().from(member).where(eq(member.id, id));
  return row;
};

const sessionRows = (id: number) => app.current.db.select().from(authSession).where(eq(authSession.memberId, id));

const cachedSession = async (token: string) => {
  const raw = await app.current.redis!.get(sessionCacheKeys(hashToken(token)).session);
  return raw ? (JSON.parse(raw) as { plan: string; role: string }) : null;
};

const put = (url: string, payload: unknown, caller: TestMember | null = admin) =>
  app.current.inject({ method: 'PUT', url, payload: payload as object, headers: caller?.headers ?? {} });

describe('guards on the member routes', () => {
  const routes = (targetId: number) => [
    { method: 'GET' as const, url: '/api/admin/members' },
    { method: 'PUT' as const, url: `/api/admin/members/${targetId}/plan`, payload: { plan: 'PREMIUM' } },
    { method: 'PUT' as const, url: `/api/admin/members/${targetId}/role`, payload: { role: 'ADMIN' } },
    { method: 'PUT' as const, url: `/api/admin/members/${targetId}/status`, payload: { status: 'SUSPENDED' } },
    { method: 'DELETE' as const, url: `/api/admin/members/${targetId}` },
  ];

  it('anonymous callers get 401 and nothing changes', async () => {
    const target = await createMemberWithSession(app.current);
    for (const route of routes(target.id)) {
      const response = await app.current.inject(route);
      expect(response.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(response.json().code).toBe('UNAUTHENTICATED');
    }
    expect(await memberRow(target.id)).toMatchObject({ plan: 'FREE', role: 'USER', status: 'ACTIVE' });
  });

  it.each(['FREE', 'PREMIUM'] as const)('%s members get 403 and cannot touch another member', async (plan) => {
    const caller = plan === 'FREE' ? free : premium;
    const target = await createMemberWithSession(app.current);
    for (const route of routes(target.id)) {
      const response = await app.current.inject({ ...route, headers: caller.headers });
      expect(response.statusCode, `${route.method} ${route.url}`).toBe(403);
      expect(response.json().code).toBe('ADMIN_REQUIRED');
    }
    // Not even on themselves: a member cannot grant themselves a plan or the ADMIN role.
    for (const route of routes(caller.id)) {
      const response = await app.current.inject({ ...route, headers: caller.headers });
      expect(response.statusCode).toBe(403);
    }
    expect(await memberRow(target.id)).toMatchObject({ plan: 'FREE', role: 'USER', status: 'ACTIVE' });
    expect(await memberRow(caller.id)).toMatchObject({ plan, role: 'USER', status: 'ACTIVE' });
  });

  it('admins get 2xx on every member route', async () => {
    const target = await createMemberWithSession(app.current);
    const statuses: number[] = [];
    for (const route of routes(target.id)) {
      statuses.push((await app.current.inject({ ...route, headers: admin.headers })).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 204]);
  });
});

describe('GET /api/admin/members', () => {
  const marker = `zq${randomBytes(4).toString('hex')}`;
  let alice: TestMember;
  let bob: TestMember;
  let carol: TestMember;

  beforeAll(async () => {
    alice = await createMemberWithSession(app.current, { email: `alice.${marker}@nestegg.test`, displayName: 'Alice' });
    bob = await createMemberWithSession(app.current, {
      email: `bob@${marker}.test`,
      displayName: `Bob ${marker.toUpperCase()}`,
    });
    carol = await createMemberWithSession(app.current, {
      email: `carol@nestegg.test`,
      displayName: `Carol_${marker}%`,
    });
    await app.current.db
      .update(member)
      .set({ profileImage: 'data:image/png;base64,AAAA' })
      .where(eq(member.id, alice.id));
  });

  const list = (query: string) =>
    app.current.inject({ method: 'GET', url: `/api/admin/members${query}`, headers: admin.headers });

  it('pages newest first with the total, without profileImage', async () => {
    const total = (await app.current.db.select().from(member)).length;
    const first = await list('?size=2');
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ page: 1, size: 2, total });
    expect(body.items).toHaveLength(2);
    const ids = body.items.map((item: { id: number }) => item.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const second = (await list('?size=2&page=2')).json();
    expect(second.items[0].id).toBeLessThan(ids[1]);

    const all = (await list('?size=100')).json();
    expect(all.items.map((item: { id: number }) => item.id)).toEqual(
      [...all.items.map((item: { id: number }) => item.id)].sort((a: number, b: number) => b - a),
    );
    for (const item of all.items) expect(item).not.toHaveProperty('profileImage');
    const aliceItem = all.items.find((item: { id: number }) => item.id === alice.id);
    expect(aliceItem).toMatchObject({
      id: alice.id,
      email: alice.email,
      displayName: 'Alice',
      role: 'USER',
      status: 'ACTIVE',
      provider: 'LOCAL',
      plan: 'FREE',
      planExpiresAt: null,
      planProduct: null,
      planAutoRenew: false,
      points: 0,
      idpOnePicture: null,
    });
    expect(Object.keys(aliceItem).sort()).not.toContain('profileImage');
  });

  it('answers an empty page past the end with the real total; offset pages stop at 10,000 rows', async () => {
    const body = (await list('?page=100&size=100')).json();
    expect(body.items).toEqual([]);
    expect(body.total).toBeGreaterThan(0);
    expect(body.nextCursor).toBeNull();
    const deep = await list('?page=101&size=100');
    expect(deep.statusCode).toBe(400);
    expect(deep.json().code).toBe('OFFSET_TOO_DEEP');
  });

  it('pages by cursor to the end, the same rows as the offset pages, with the total on every page', async () => {
    const total = (await app.current.db.select().from(member)).length;
    const everyone = (await list('?size=100')).json().items.map((item: { id: number }) => item.id);
    const walked: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '?size=2' : `?size=2&cursor=${cursor}&page=7`;
      const body = (await list(query)).json();
      expect(body).toMatchObject({ page: 1, size: 2, total, totalIsLowerBound: false });
      walked.push(...body.items.map((item: { id: number }) => item.id));
      cursor = body.nextCursor;
    } while (cursor !== null);
    expect(walked).toEqual(everyone);
    expect((await list('?cursor=bm90LWEtY3Vyc29y')).json().code).toBe('CURSOR_INVALID');
  });

  it('keeps the unfiltered total in step with sign-ups and deletions (the maintained count)', async () => {
    const before = (await list('?size=1')).json().total;
    const added = await createMemberWithSession(app.current, { plan: 'FREE' });
    expect((await list('?size=1')).json().total).toBe(before + 1);
    expect(
      (await app.current.inject({ method: 'DELETE', url: `/api/admin/members/${added.id}`, headers: admin.headers }))
        .statusCode,
    ).toBe(204);
    expect((await list('?size=1')).json().total).toBe(before);
    expect(before).toBe((await app.current.db.select().from(member)).length);
  });

  it('searches e-mail and display name case-insensitively', async () => {
    const byMarker = (await list(`?q=${marker.toUpperCase()}`)).json();
    expect(byMarker.items.map((item: { id: number }) => item.id)).toEqual([carol.id, bob.id, alice.id]);
    expect(byMarker.total).toBe(3);

    const byName = (await list(`?q=${encodeURIComponent(`bob ${marker}`)}`)).json();
    expect(byName.items.map((item: { id: number }) => item.id)).toEqual([bob.id]);

    const byEmail = (await list(`?q=ALICE.${marker}`)).json();
    expect(byEmail.items.map((item: { id: number }) => item.id)).toEqual([alice.id]);

    const paged = (await list(`?q=${marker}&size=1&page=2`)).json();
    expect(paged).toMatchObject({ page: 2, size: 1, total: 3 });
    expect(paged.items.map((item: { id: number }) => item.id)).toEqual([bob.id]);
  });

  it('matches % and _ literally', async () => {
    const percent = (await list(`?q=${encodeURIComponent(`${marker}%`)}`)).json();
    expect(percent.items.map((item: { id: number }) => item.id)).toEqual([carol.id]);
    const underscore = (await list(`?q=${encodeURIComponent(`_${marker}`)}`)).json();
    expect(underscore.items.map((item: { id: number }) => item.id)).toEqual([carol.id]);
    const onlyWildcards = (await list(`?q=${encodeURIComponent('%_%')}`)).json();
    expect(onlyWildcards.total).toBe(0);
    expect(likeContains('a%b_c\\d')).toBe('%a\\%b\\_c\\\\d%');
  });

  it('treats a blank q as no filter', async () => {
    const total = (await app.current.db.select().from(member)).length;
    expect((await list('?q=%20%20')).json().total).toBe(total);
  });

  it('rejects bad paging with 400', async () => {
    for (const query of ['?page=0', '?size=0', '?size=101', '?page=abc', `?q=${'x'.repeat(101)}`]) {
      const response = await list(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('PUT /api/admin/members/:id/plan', () => {
  it('sets the plan permanently, clears subscription info, and live sessions see it at once', async () => {
    const target = await createMemberWithSession(app.current, { plan: 'FREE' });
    const second = (await app.current.services.sessions.open(target.id, { rememberMe: true }))!;
    await app.current.db
      .update(member)
      .set({ planExpiresAt: new Date(Date.now() - 1000), planProduct: 'monthly', planAutoRenew: true })
      .where(eq(member.id, target.id));
    // The session is cached in Redis with the old plan.
    expect((await app.current.services.sessions.resolve(target.token))?.plan).toBe('FREE');
    expect((await cachedSession(target.token))?.plan).toBe('FREE');

    const response = await put(`/api/admin/members/${target.id}/plan`, { plan: 'PREMIUM' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: target.id,
      plan: 'PREMIUM',
      planExpiresAt: null,
      planProduct: null,
      planAutoRenew: false,
    });
    expect(response.json()).not.toHaveProperty('profileImage');
    expect(await memberRow(target.id)).toMatchObject({
      plan: 'PREMIUM',
      planExpiresAt: null,
      planProduct: null,
      planAutoRenew: false,
    });

    expect((await app.current.services.sessions.resolve(target.token))?.plan).toBe('PREMIUM');
    expect((await app.current.services.sessions.resolve(second.token))?.plan).toBe('PREMIUM');
    expect((await cachedSession(target.token))?.plan).toBe('PREMIUM');
    expect((await sessionRows(target.id)).map((row) => row.plan)).toEqual(['PREMIUM', 'PREMIUM']);
  });

  it('sets FREE on a paying member the same way (permanent, subscription cleared)', async () => {
    const target = await createMemberWithSession(app.current, { plan: 'PREMIUM' });
    await app.current.db
      .update(member)
      .set({ planExpiresAt: new Date(Date.now() + 86_400_000), planProduct: 'yearly', planAutoRenew: true })
      .where(eq(member.id, target.id));
    await app.current.services.sessions.resolve(target.token);

    const response = await put(`/api/admin/members/${target.id}/plan`, { plan: 'FREE' });
    expect(response.statusCode).toBe(200);
    expect(await memberRow(target.id)).toMatchObject({
      plan: 'FREE',
      planExpiresAt: null,
      planProduct: null,
      planAutoRenew: false,
    });
    expect((await app.current.services.sessions.resolve(target.token))?.plan).toBe('FREE');
  });

  it('rejects an unknown plan, a bad id and a missing body with 400', async () => {
    const target = await createMemberWithSession(app.current);
    for (const [url, payload] of [
      [`/api/admin/members/${target.id}/plan`, { plan: 'GOLD' }],
      [`/api/admin/members/${target.id}/plan`, {}],
      ['/api/admin/members/abc/plan', { plan: 'PREMIUM' }],
      ['/api/admin/members/0/plan', { plan: 'PREMIUM' }],
    ] as const) {
      const response = await put(url, payload);
      expect(response.statusCode, `${url} ${JSON.stringify(payload)}`).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    expect((await memberRow(target.id))?.plan).toBe('FREE');
  });
});

describe('PUT /api/admin/members/:id/role', () => {
  it('promotes and demotes, and the live session follows at once', async () => {
    const target = await createMemberWithSession(app.current);
    const listAs = () => app.current.inject({ method: 'GET', url: '/api/admin/members', headers: target.headers });
    expect((await listAs()).statusCode).toBe(403);

    const promoted = await put(`/api/admin/members/${target.id}/role`, { role: 'ADMIN' });
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ id: target.id, role: 'ADMIN' });
    expect((await app.current.services.sessions.resolve(target.token))?.role).toBe('ADMIN');
    expect((await listAs()).statusCode).toBe(200);

    const demoted = await put(`/api/admin/members/${target.id}/role`, { role: 'USER' });
    expect(demoted.json()).toMatchObject({ role: 'USER' });
    expect((await listAs()).statusCode).toBe(403);
    expect((await memberRow(target.id))?.role).toBe('USER');
  });

  it('rejects an unknown role with 400', async () => {
    const target = await createMemberWithSession(app.current);
    const response = await put(`/api/admin/members/${target.id}/role`, { role: 'ROOT' });
    expect(response.statusCode).toBe(400);
  });
});

describe('PUT /api/admin/members/:id/status', () => {
  it('suspending revokes every session and keeps the data; reactivating lets the member back', async () => {
    const target = await createMemberWithSession(app.current);
    const second = (await app.current.services.sessions.open(target.id, { rememberMe: false }))!;
    await app.current.db.insert(pointHistory).values({ memberId: target.id, amount: 10, reason: 'POST' });
    await app.current.db.insert(category).values({ memberId: target.id, name: 'Food', type: 'EXPENSE' });
    expect(await app.current.services.sessions.resolve(target.token)).not.toBeNull();

    const response = await put(`/api/admin/members/${target.id}/status`, { status: 'SUSPENDED' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: target.id, status: 'SUSPENDED' });

    expect(await app.current.services.sessions.resolve(target.token)).toBeNull();
    expect(await app.current.services.sessions.resolve(second.token)).toBeNull();
    expect(await cachedSession(target.token)).toBeNull();
    expect(await sessionRows(target.id)).toEqual([]);
    const revoked = await app.current.inject({
      method: 'GET',
      url: '/api/admin/members',
      headers: target.headers,
    });
    expect(revoked.statusCode).toBe(401);

    expect((await memberRow(target.id))?.status).toBe('SUSPENDED');
    expect(await app.current.db.select().from(pointHistory).where(eq(pointHistory.memberId, target.id))).toHaveLength(
      1,
    );
    expect(await app.current.db.select().from(category).where(eq(category.memberId, target.id))).toHaveLength(1);

    const reactivated = await put(`/api/admin/members/${target.id}/status`, { status: 'ACTIVE' });
    expect(reactivated.statusCode).toBe(200);
    expect((await memberRow(target.id))?.status).toBe('ACTIVE');
  });

  it('a suspended member cannot log in until reactivated', async () => {
    const target = await createMemberWithSession(app.current);
    await app.current.db
      .update(member)
      .set({ passwordHash: await hasher.hash('correct horse') })
      .where(eq(member.id, target.id));
    const login = () =>
      app.current.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: target.email, password: 'correct horse' },
      });
    expect((await login()).statusCode).toBe(200);

    await put(`/api/admin/members/${target.id}/status`, { status: 'SUSPENDED' });
    const refused = await login();
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('ACCOUNT_SUSPENDED');
    expect(await sessionRows(target.id)).toEqual([]);

    await put(`/api/admin/members/${target.id}/status`, { status: 'ACTIVE' });
    expect((await login()).statusCode).toBe(200);
  });

  it('rejects an unknown status with 400', async () => {
    const target = await createMemberWithSession(app.current);
    expect((await put(`/api/admin/members/${target.id}/status`, { status: 'BANNED' })).statusCode).toBe(400);
  });
});

describe('DELETE /api/admin/members/:id', () => {
  it('deletes the member, their data and sessions; a second delete is 404', async () => {
    const target = await createMemberWithSession(app.current);
    await app.current.db.insert(pointHistory).values({ memberId: target.id, amount: 10, reason: 'POST' });
    await app.current.db.insert(category).values({ memberId: target.id, name: 'Food', type: 'EXPENSE' });
    await app.current.services.sessions.resolve(target.token);

    const response = await app.current.inject({
      method: 'DELETE',
      url: `/api/admin/members/${target.id}`,
      headers: admin.headers,
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(await memberRow(target.id)).toBeUndefined();
    expect(await app.current.db.select().from(category).where(eq(category.memberId, target.id))).toEqual([]);
    expect(await app.current.services.sessions.resolve(target.token)).toBeNull();

    const again = await app.current.inject({
      method: 'DELETE',
      url: `/api/admin/members/${target.id}`,
      headers: admin.headers,
    });
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('NOT_FOUND');
  });
});

describe('unknown members and the admin themselves', () => {
  const unknownId = 2_000_000_000;

  it('answers 404 for an unknown id on every member operation', async () => {
    const requests = [
      put(`/api/admin/members/${unknownId}/plan`, { plan: 'PREMIUM' }),
      put(`/api/admin/members/${unknownId}/role`, { role: 'ADMIN' }),
      put(`/api/admin/members/${unknownId}/status`, { status: 'SUSPENDED' }),
      app.current.inject({ method: 'DELETE', url: `/api/admin/members/${unknownId}`, headers: admin.headers }),
    ];
    for (const response of await Promise.all(requests)) {
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('NOT_FOUND');
    }
  });

  it('refuses every change of the admin’s own account with 403 CANNOT_MODIFY_SELF', async () => {
    const self = await createMemberWithSession(app.current, { role: 'ADMIN' });
    const responses = [
      await put(`/api/admin/members/${self.id}/plan`, { plan: 'PREMIUM' }, self),
      await put(`/api/admin/members/${self.id}/role`, { role: 'USER' }, self),
      await put(`/api/admin/members/${self.id}/status`, { status: 'SUSPENDED' }, self),
      await app.current.inject({ method: 'DELETE', url: `/api/admin/members/${self.id}`, headers: self.headers }),
    ];
    for (const response of responses) {
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('CANNOT_MODIFY_SELF');
    }
    expect(await memberRow(self.id)).toMatchObject({ plan: 'FREE', role: 'ADMIN', status: 'ACTIVE' });
    expect((await app.current.services.sessions.resolve(self.token))?.role).toBe('ADMIN');
  });

  it('lets one admin act on another admin', async () => {
    const other = await createMemberWithSession(app.current, { role: 'ADMIN' });
    const response = await put(`/api/admin/members/${other.id}/role`, { role: 'USER' });
    expect(response.statusCode).toBe(200);
    expect((await app.current.services.sessions.resolve(other.token))?.role).toBe('USER');
  });
});

describe('first admin (command-line services)', () => {
  it('promoteToAdmin finds the account by e-mail in any case and updates its live sessions', async () => {
    const target = await createMemberWithSession(app.current);
    expect((await cachedSession(target.token))?.role).toBe('USER');

    const promoted = await app.current.services.members.promoteToAdmin(`  ${target.email.toUpperCase()} `);
    expect(promoted).toMatchObject({ id: target.id, role: 'ADMIN' });
    expect((await memberRow(target.id))?.role).toBe('ADMIN');
    expect((await app.current.services.sessions.resolve(target.token))?.role).toBe('ADMIN');
    const response = await app.current.inject({ method: 'GET', url: '/api/admin/members', headers: target.headers });
    expect(response.statusCode).toBe(200);
  });

  it('promoteToAdmin throws NOT_FOUND for an unknown e-mail', async () => {
    await expect(app.current.services.members.promoteToAdmin('nobody@nestegg.test')).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  it('createAdmin creates a LOCAL admin with an argon2id password and refuses a taken e-mail', async () => {
    const email = `Root-${randomBytes(3).toString('hex')}@Nestegg.test`;
    const created = await app.current.services.members.createAdmin({
      email,
      displayName: ' Root ',
      password: 'correct horse',
    });
    expect(created).toMatchObject({
      email: email.toLowerCase(),
      displayName: 'Root',
      role: 'ADMIN',
      provider: 'LOCAL',
    });
    const row = await memberRow(created.id);
    expect(row).toMatchObject({ role: 'ADMIN', status: 'ACTIVE', emailVerified: true, plan: 'FREE' });
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    expect((await hasher.check('correct horse', row!.passwordHash!)).ok).toBe(true);

    await expect(
      app.current.services.members.createAdmin({
        email: email.toUpperCase(),
        displayName: 'Again',
        password: 'correct horse',
      }),
    ).rejects.toMatchObject({ status: 409, code: 'EMAIL_TAKEN' });
  });
});
