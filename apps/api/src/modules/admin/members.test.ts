import { randomBytes } from 'node:crypto';
import { authSession, category, member, pointHistory } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { createMemberWithSession, type TestMember } from '../../test/app.js';
import { PasswordHasher } from '../auth/passwords.js';

const hasher = new PasswordHasher();

import { likeContains } from '../../lib/sql-like.js';
import { apiTest } from '../../test/fixtures.js';
import { hashToken, sessionCacheKeys } from '../auth/session.store.js';

const test = apiTest();

let admin: TestMember;
let free: TestMember;
let premium: TestMember;

test.beforeAll(async ({ app }) => {
  admin = await createMemberWithSession(app, { role: 'ADMIN' });
  free = await createMemberWithSession(app, { plan: 'FREE' });
  premium = await createMemberWithSession(app, { plan: 'PREMIUM' });
});

const memberRow = async (app: FastifyInstance, id: number) => {
  const [row] = await app.db.select().from(member).where(eq(member.id, id));
  return row;
};

const sessionRows = (app: FastifyInstance, id: number) =>
  app.db.select().from(authSession).where(eq(authSession.memberId, id));

const cachedSession = async (app: FastifyInstance, token: string) => {
  const raw = await app.redis!.get(sessionCacheKeys(hashToken(token)).session);
  return raw ? (JSON.parse(raw) as { plan: string; role: string }) : null;
};

const put = (app: FastifyInstance, url: string, payload: unknown, caller: TestMember | null = admin) =>
  app.inject({ method: 'PUT', url, payload: payload as object, headers: caller?.headers ?? {} });

describe('guards on the member routes', () => {
  const routes = (targetId: number) => [
    { method: 'GET' as const, url: '/api/admin/members' },
    { method: 'PUT' as const, url: `/api/admin/members/${targetId}/plan`, payload: { plan: 'PREMIUM' } },
    { method: 'PUT' as const, url: `/api/admin/members/${targetId}/role`, payload: { role: 'ADMIN' } },
    { method: 'PUT' as const, url: `/api/admin/members/${targetId}/status`, payload: { status: 'SUSPENDED' } },
    { method: 'DELETE' as const, url: `/api/admin/members/${targetId}` },
  ];

  test('anonymous callers get 401 and nothing changes', async ({ app }) => {
    const target = await createMemberWithSession(app);
    for (const route of routes(target.id)) {
      const response = await app.inject(route);
      expect(response.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(response.json().code).toBe('UNAUTHENTICATED');
    }
    expect(await memberRow(app, target.id)).toMatchObject({ plan: 'FREE', role: 'USER', status: 'ACTIVE' });
  });

  test.for(['FREE', 'PREMIUM'] as const)(
    '%s members get 403 and cannot touch another member',
    async (plan, { app }) => {
      const caller = plan === 'FREE' ? free : premium;
      const target = await createMemberWithSession(app);
      for (const route of routes(target.id)) {
        const response = await app.inject({ ...route, headers: caller.headers });
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(403);
        expect(response.json().code).toBe('ADMIN_REQUIRED');
      }
      // Not even on themselves: a member cannot grant themselves a plan or the ADMIN role.
      for (const route of routes(caller.id)) {
        const response = await app.inject({ ...route, headers: caller.headers });
        expect(response.statusCode).toBe(403);
      }
      expect(await memberRow(app, target.id)).toMatchObject({ plan: 'FREE', role: 'USER', status: 'ACTIVE' });
      expect(await memberRow(app, caller.id)).toMatchObject({ plan, role: 'USER', status: 'ACTIVE' });
    },
  );

  test('admins get 2xx on every member route', async ({ app }) => {
    const target = await createMemberWithSession(app);
    const statuses: number[] = [];
    for (const route of routes(target.id)) {
      statuses.push((await app.inject({ ...route, headers: admin.headers })).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 204]);
  });
});

describe('GET /api/admin/members', () => {
  const marker = `zq${randomBytes(4).toString('hex')}`;
  let alice: TestMember;
  let bob: TestMember;
  let carol: TestMember;

  test.beforeAll(async ({ app }) => {
    alice = await createMemberWithSession(app, { email: `alice.${marker}@nestegg.test`, displayName: 'Alice' });
    bob = await createMemberWithSession(app, {
      email: `bob@${marker}.test`,
      displayName: `Bob ${marker.toUpperCase()}`,
    });
    carol = await createMemberWithSession(app, {
      email: `carol@nestegg.test`,
      displayName: `Carol_${marker}%`,
    });
    await app.db.update(member).set({ profileImage: 'data:image/png;base64,AAAA' }).where(eq(member.id, alice.id));
  });

  const list = (app: FastifyInstance, query: string) =>
    app.inject({ method: 'GET', url: `/api/admin/members${query}`, headers: admin.headers });

  test('pages newest first with the total, without profileImage', async ({ app }) => {
    const total = (await app.db.select().from(member)).length;
    const first = await list(app, '?size=2');
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ page: 1, size: 2, total });
    expect(body.items).toHaveLength(2);
    const ids = body.items.map((item: { id: number }) => item.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const second = (await list(app, '?size=2&page=2')).json();
    expect(second.items[0].id).toBeLessThan(ids[1]);

    const all = (await list(app, '?size=100')).json();
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

  test('answers an empty page past the end with the real total; offset pages stop at 10,000 rows', async ({ app }) => {
    const body = (await list(app, '?page=100&size=100')).json();
    expect(body.items).toEqual([]);
    expect(body.total).toBeGreaterThan(0);
    expect(body.nextCursor).toBeNull();
    const deep = await list(app, '?page=101&size=100');
    expect(deep.statusCode).toBe(400);
    expect(deep.json().code).toBe('OFFSET_TOO_DEEP');
  });

  test('pages by cursor to the end, the same rows as the offset pages, with the total on every page', async ({
    app,
  }) => {
    const total = (await app.db.select().from(member)).length;
    const everyone = (await list(app, '?size=100')).json().items.map((item: { id: number }) => item.id);
    const walked: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '?size=2' : `?size=2&cursor=${cursor}&page=7`;
      const body = (await list(app, query)).json();
      expect(body).toMatchObject({ page: 1, size: 2, total, totalIsLowerBound: false });
      walked.push(...body.items.map((item: { id: number }) => item.id));
      cursor = body.nextCursor;
    } while (cursor !== null);
    expect(walked).toEqual(everyone);
    expect((await list(app, '?cursor=bm90LWEtY3Vyc29y')).json().code).toBe('CURSOR_INVALID');
  });

  test('keeps the unfiltered total in step with sign-ups and deletions (the maintained count)', async ({ app }) => {
    const before = (await list(app, '?size=1')).json().total;
    const added = await createMemberWithSession(app, { plan: 'FREE' });
    expect((await list(app, '?size=1')).json().total).toBe(before + 1);
    expect(
      (await app.inject({ method: 'DELETE', url: `/api/admin/members/${added.id}`, headers: admin.headers }))
        .statusCode,
    ).toBe(204);
    expect((await list(app, '?size=1')).json().total).toBe(before);
    expect(before).toBe((await app.db.select().from(member)).length);
  });

  test('searches e-mail and display name case-insensitively', async ({ app }) => {
    const byMarker = (await list(app, `?q=${marker.toUpperCase()}`)).json();
    expect(byMarker.items.map((item: { id: number }) => item.id)).toEqual([carol.id, bob.id, alice.id]);
    expect(byMarker.total).toBe(3);

    const byName = (await list(app, `?q=${encodeURIComponent(`bob ${marker}`)}`)).json();
    expect(byName.items.map((item: { id: number }) => item.id)).toEqual([bob.id]);

    const byEmail = (await list(app, `?q=ALICE.${marker}`)).json();
    expect(byEmail.items.map((item: { id: number }) => item.id)).toEqual([alice.id]);

    const paged = (await list(app, `?q=${marker}&size=1&page=2`)).json();
    expect(paged).toMatchObject({ page: 2, size: 1, total: 3 });
    expect(paged.items.map((item: { id: number }) => item.id)).toEqual([bob.id]);
  });

  test('matches % and _ literally', async ({ app }) => {
    const percent = (await list(app, `?q=${encodeURIComponent(`${marker}%`)}`)).json();
    expect(percent.items.map((item: { id: number }) => item.id)).toEqual([carol.id]);
    const underscore = (await list(app, `?q=${encodeURIComponent(`_${marker}`)}`)).json();
    expect(underscore.items.map((item: { id: number }) => item.id)).toEqual([carol.id]);
    const onlyWildcards = (await list(app, `?q=${encodeURIComponent('%_%')}`)).json();
    expect(onlyWildcards.total).toBe(0);
    expect(likeContains('a%b_c\\d')).toBe('%a\\%b\\_c\\\\d%');
  });

  test('treats a blank q as no filter', async ({ app }) => {
    const total = (await app.db.select().from(member)).length;
    expect((await list(app, '?q=%20%20')).json().total).toBe(total);
  });

  test('rejects bad paging with 400', async ({ app }) => {
    for (const query of ['?page=0', '?size=0', '?size=101', '?page=abc', `?q=${'x'.repeat(101)}`]) {
      const response = await list(app, query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('PUT /api/admin/members/:id/plan', () => {
  test('sets the plan permanently, clears subscription info, and live sessions see it at once', async ({ app }) => {
    const target = await createMemberWithSession(app, { plan: 'FREE' });
    const second = (await app.services.sessions.open(target.id, { rememberMe: true }))!;
    await app.db
      .update(member)
      .set({ planExpiresAt: new Date(Date.now() - 1000), planProduct: 'monthly', planAutoRenew: true })
      .where(eq(member.id, target.id));
    // The session is cached in Redis with the old plan.
    expect((await app.services.sessions.resolve(target.token))?.plan).toBe('FREE');
    expect((await cachedSession(app, target.token))?.plan).toBe('FREE');

    const response = await put(app, `/api/admin/members/${target.id}/plan`, { plan: 'PREMIUM' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: target.id,
      plan: 'PREMIUM',
      planExpiresAt: null,
      planProduct: null,
      planAutoRenew: false,
    });
    expect(response.json()).not.toHaveProperty('profileImage');
    expect(await memberRow(app, target.id)).toMatchObject({
      plan: 'PREMIUM',
      planExpiresAt: null,
      planProduct: null,
      planAutoRenew: false,
    });

    expect((await app.services.sessions.resolve(target.token))?.plan).toBe('PREMIUM');
    expect((await app.services.sessions.resolve(second.token))?.plan).toBe('PREMIUM');
    expect((await cachedSession(app, target.token))?.plan).toBe('PREMIUM');
    expect((await sessionRows(app, target.id)).map((row) => row.plan)).toEqual(['PREMIUM', 'PREMIUM']);
  });

  test('sets FREE on a paying member the same way (permanent, subscription cleared)', async ({ app }) => {
    const target = await createMemberWithSession(app, { plan: 'PREMIUM' });
    await app.db
      .update(member)
      .set({ planExpiresAt: new Date(Date.now() + 86_400_000), planProduct: 'yearly', planAutoRenew: true })
      .where(eq(member.id, target.id));
    await app.services.sessions.resolve(target.token);

    const response = await put(app, `/api/admin/members/${target.id}/plan`, { plan: 'FREE' });
    expect(response.statusCode).toBe(200);
    expect(await memberRow(app, target.id)).toMatchObject({
      plan: 'FREE',
      planExpiresAt: null,
      planProduct: null,
      planAutoRenew: false,
    });
    expect((await app.services.sessions.resolve(target.token))?.plan).toBe('FREE');
  });

  test('rejects an unknown plan, a bad id and a missing body with 400', async ({ app }) => {
    const target = await createMemberWithSession(app);
    for (const [url, payload] of [
      [`/api/admin/members/${target.id}/plan`, { plan: 'GOLD' }],
      [`/api/admin/members/${target.id}/plan`, {}],
      ['/api/admin/members/abc/plan', { plan: 'PREMIUM' }],
      ['/api/admin/members/0/plan', { plan: 'PREMIUM' }],
    ] as const) {
      const response = await put(app, url, payload);
      expect(response.statusCode, `${url} ${JSON.stringify(payload)}`).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    expect((await memberRow(app, target.id))?.plan).toBe('FREE');
  });
});

describe('PUT /api/admin/members/:id/role', () => {
  test('promotes and demotes, and the live session follows at once', async ({ app }) => {
    const target = await createMemberWithSession(app);
    const listAs = () => app.inject({ method: 'GET', url: '/api/admin/members', headers: target.headers });
    expect((await listAs()).statusCode).toBe(403);

    const promoted = await put(app, `/api/admin/members/${target.id}/role`, { role: 'ADMIN' });
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ id: target.id, role: 'ADMIN' });
    expect((await app.services.sessions.resolve(target.token))?.role).toBe('ADMIN');
    expect((await listAs()).statusCode).toBe(200);

    const demoted = await put(app, `/api/admin/members/${target.id}/role`, { role: 'USER' });
    expect(demoted.json()).toMatchObject({ role: 'USER' });
    expect((await listAs()).statusCode).toBe(403);
    expect((await memberRow(app, target.id))?.role).toBe('USER');
  });

  test('rejects an unknown role with 400', async ({ app }) => {
    const target = await createMemberWithSession(app);
    const response = await put(app, `/api/admin/members/${target.id}/role`, { role: 'ROOT' });
    expect(response.statusCode).toBe(400);
  });
});

describe('PUT /api/admin/members/:id/status', () => {
  test('suspending revokes every session and keeps the data; reactivating lets the member back', async ({ app }) => {
    const target = await createMemberWithSession(app);
    const second = (await app.services.sessions.open(target.id, { rememberMe: false }))!;
    await app.db.insert(pointHistory).values({ memberId: target.id, amount: 10, reason: 'POST' });
    await app.db.insert(category).values({ memberId: target.id, name: 'Food', type: 'EXPENSE' });
    expect(await app.services.sessions.resolve(target.token)).not.toBeNull();

    const response = await put(app, `/api/admin/members/${target.id}/status`, { status: 'SUSPENDED' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: target.id, status: 'SUSPENDED' });

    expect(await app.services.sessions.resolve(target.token)).toBeNull();
    expect(await app.services.sessions.resolve(second.token)).toBeNull();
    expect(await cachedSession(app, target.token)).toBeNull();
    expect(await sessionRows(app, target.id)).toEqual([]);
    const revoked = await app.inject({
      method: 'GET',
      url: '/api/admin/members',
      headers: target.headers,
    });
    expect(revoked.statusCode).toBe(401);

    expect((await memberRow(app, target.id))?.status).toBe('SUSPENDED');
    expect(await app.db.select().from(pointHistory).where(eq(pointHistory.memberId, target.id))).toHaveLength(1);
    expect(await app.db.select().from(category).where(eq(category.memberId, target.id))).toHaveLength(1);

    const reactivated = await put(app, `/api/admin/members/${target.id}/status`, { status: 'ACTIVE' });
    expect(reactivated.statusCode).toBe(200);
    expect((await memberRow(app, target.id))?.status).toBe('ACTIVE');
  });

  test('a suspended member cannot log in until reactivated', async ({ app }) => {
    const target = await createMemberWithSession(app);
    await app.db
      .update(member)
      .set({ passwordHash: await hasher.hash('correct horse') })
      .where(eq(member.id, target.id));
    const login = () =>
      app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: target.email, password: 'correct horse' },
      });
    expect((await login()).statusCode).toBe(200);

    await put(app, `/api/admin/members/${target.id}/status`, { status: 'SUSPENDED' });
    const refused = await login();
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('ACCOUNT_SUSPENDED');
    expect(await sessionRows(app, target.id)).toEqual([]);

    await put(app, `/api/admin/members/${target.id}/status`, { status: 'ACTIVE' });
    expect((await login()).statusCode).toBe(200);
  });

  test('rejects an unknown status with 400', async ({ app }) => {
    const target = await createMemberWithSession(app);
    expect((await put(app, `/api/admin/members/${target.id}/status`, { status: 'BANNED' })).statusCode).toBe(400);
  });
});

describe('DELETE /api/admin/members/:id', () => {
  test('deletes the member, their data and sessions; a second delete is 404', async ({ app }) => {
    const target = await createMemberWithSession(app);
    await app.db.insert(pointHistory).values({ memberId: target.id, amount: 10, reason: 'POST' });
    await app.db.insert(category).values({ memberId: target.id, name: 'Food', type: 'EXPENSE' });
    await app.services.sessions.resolve(target.token);

    const response = await app.inject({
      method: 'DELETE',
      url: `/api/admin/members/${target.id}`,
      headers: admin.headers,
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(await memberRow(app, target.id)).toBeUndefined();
    expect(await app.db.select().from(category).where(eq(category.memberId, target.id))).toEqual([]);
    expect(await app.services.sessions.resolve(target.token)).toBeNull();

    const again = await app.inject({
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

  test('answers 404 for an unknown id on every member operation', async ({ app }) => {
    const requests = [
      put(app, `/api/admin/members/${unknownId}/plan`, { plan: 'PREMIUM' }),
      put(app, `/api/admin/members/${unknownId}/role`, { role: 'ADMIN' }),
      put(app, `/api/admin/members/${unknownId}/status`, { status: 'SUSPENDED' }),
      app.inject({ method: 'DELETE', url: `/api/admin/members/${unknownId}`, headers: admin.headers }),
    ];
    for (const response of await Promise.all(requests)) {
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('NOT_FOUND');
    }
  });

  test('refuses every change of the admin’s own account with 403 CANNOT_MODIFY_SELF', async ({ app }) => {
    const self = await createMemberWithSession(app, { role: 'ADMIN' });
    const responses = [
      await put(app, `/api/admin/members/${self.id}/plan`, { plan: 'PREMIUM' }, self),
      await put(app, `/api/admin/members/${self.id}/role`, { role: 'USER' }, self),
      await put(app, `/api/admin/members/${self.id}/status`, { status: 'SUSPENDED' }, self),
      await app.inject({ method: 'DELETE', url: `/api/admin/members/${self.id}`, headers: self.headers }),
    ];
    for (const response of responses) {
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('CANNOT_MODIFY_SELF');
    }
    expect(await memberRow(app, self.id)).toMatchObject({ plan: 'FREE', role: 'ADMIN', status: 'ACTIVE' });
    expect((await app.services.sessions.resolve(self.token))?.role).toBe('ADMIN');
  });

  test('lets one admin act on another admin', async ({ app }) => {
    const other = await createMemberWithSession(app, { role: 'ADMIN' });
    const response = await put(app, `/api/admin/members/${other.id}/role`, { role: 'USER' });
    expect(response.statusCode).toBe(200);
    expect((await app.services.sessions.resolve(other.token))?.role).toBe('USER');
  });
});

describe('first admin (command-line services)', () => {
  test('promoteToAdmin finds the account by e-mail in any case and updates its live sessions', async ({ app }) => {
    const target = await createMemberWithSession(app);
    expect((await cachedSession(app, target.token))?.role).toBe('USER');

    const promoted = await app.services.members.promoteToAdmin(`  ${target.email.toUpperCase()} `);
    expect(promoted).toMatchObject({ id: target.id, role: 'ADMIN' });
    expect((await memberRow(app, target.id))?.role).toBe('ADMIN');
    expect((await app.services.sessions.resolve(target.token))?.role).toBe('ADMIN');
    const response = await app.inject({ method: 'GET', url: '/api/admin/members', headers: target.headers });
    expect(response.statusCode).toBe(200);
  });

  test('promoteToAdmin throws NOT_FOUND for an unknown e-mail', async ({ app }) => {
    await expect(app.services.members.promoteToAdmin('nobody@nestegg.test')).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  test('createAdmin creates a LOCAL admin with an argon2id password and refuses a taken e-mail', async ({ app }) => {
    const email = `Root-${randomBytes(3).toString('hex')}@Nestegg.test`;
    const created = await app.services.members.createAdmin({
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
    const row = await memberRow(app, created.id);
    expect(row).toMatchObject({ role: 'ADMIN', status: 'ACTIVE', emailVerified: true, plan: 'FREE' });
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    expect((await hasher.check('correct horse', row!.passwordHash!)).ok).toBe(true);

    await expect(
      app.services.members.createAdmin({
        email: email.toUpperCase(),
        displayName: 'Again',
        password: 'correct horse',
      }),
    ).rejects.toMatchObject({ status: 409, code: 'EMAIL_TAKEN' });
  });
});
