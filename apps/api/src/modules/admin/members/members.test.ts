import { randomBytes } from 'node:crypto';
import type { AdminMemberPage } from '@nestegg/contract';
import { authSession, category, member, pointHistory } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { createMemberWithSession, type TestMember } from '../../../test/app.js';
import { type ApiClient, bodyOf, contractClient, problemOf } from '../../../test/client.js';
import { PasswordHasher } from '../../members/auth/passwords.js';

const hasher = new PasswordHasher();

import { likeContains } from '../../../lib/sql-like.js';
import { apiTest } from '../../../test/fixtures.js';
import { hashToken, sessionCacheKeys } from '../../members/auth/session.store.js';

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

/** The typed client of a member (their token), or of an anonymous caller. */
const apiOf = (app: FastifyInstance, caller: TestMember | null = admin) =>
  contractClient(app, caller ? { token: caller.token } : {});

describe('guards on the member routes', () => {
  type Answer = { status: number; body: unknown };
  const routes = (targetId: number) => {
    const params = { id: targetId };
    return [
      { route: 'GET /api/admin/members', call: (api: ApiClient): Promise<Answer> => api.admin.listMembers() },
      {
        route: `PUT /api/admin/members/${targetId}/plan`,
        call: (api: ApiClient): Promise<Answer> => api.admin.setMemberPlan({ params, body: { plan: 'PREMIUM' } }),
      },
      {
        route: `PUT /api/admin/members/${targetId}/role`,
        call: (api: ApiClient): Promise<Answer> => api.admin.setMemberRole({ params, body: { role: 'ADMIN' } }),
      },
      {
        route: `PUT /api/admin/members/${targetId}/status`,
        call: (api: ApiClient): Promise<Answer> => api.admin.setMemberStatus({ params, body: { status: 'SUSPENDED' } }),
      },
      {
        route: `DELETE /api/admin/members/${targetId}`,
        call: (api: ApiClient): Promise<Answer> => api.admin.deleteMember({ params }),
      },
    ];
  };

  test('anonymous callers get 401 and nothing changes', async ({ app }) => {
    const target = await createMemberWithSession(app);
    for (const { route, call } of routes(target.id)) {
      const response = await call(apiOf(app, null));
      expect(response.status, route).toBe(401);
      expect(response.body).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    expect(await memberRow(app, target.id)).toMatchObject({ plan: 'FREE', role: 'USER', status: 'ACTIVE' });
  });

  test.for(['FREE', 'PREMIUM'] as const)(
    '%s members get 403 and cannot touch another member',
    async (plan, { app }) => {
      const caller = plan === 'FREE' ? free : premium;
      const target = await createMemberWithSession(app);
      for (const { route, call } of routes(target.id)) {
        const response = await call(apiOf(app, caller));
        expect(response.status, route).toBe(403);
        expect(response.body).toMatchObject({ code: 'ADMIN_REQUIRED' });
      }
      // Not even on themselves: a member cannot grant themselves a plan or the ADMIN role.
      for (const { call } of routes(caller.id)) {
        const response = await call(apiOf(app, caller));
        expect(response.status).toBe(403);
      }
      expect(await memberRow(app, target.id)).toMatchObject({ plan: 'FREE', role: 'USER', status: 'ACTIVE' });
      expect(await memberRow(app, caller.id)).toMatchObject({ plan, role: 'USER', status: 'ACTIVE' });
    },
  );

  test('admins get 2xx on every member route', async ({ app }) => {
    const target = await createMemberWithSession(app);
    const statuses: number[] = [];
    for (const { call } of routes(target.id)) {
      statuses.push((await call(apiOf(app))).status);
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

  type ListQuery = NonNullable<Parameters<ApiClient['admin']['listMembers']>[0]>['query'];
  const list = (app: FastifyInstance, query: ListQuery) => apiOf(app).admin.listMembers({ query });
  const idsOf = (page: { items: { id: number }[] }) => page.items.map((item) => item.id);

  test('pages newest first with the total, without profileImage', async ({ app }) => {
    const total = (await app.db.select().from(member)).length;
    const body = bodyOf(await list(app, { size: 2 }), 200);
    expect(body).toMatchObject({ page: 1, size: 2, total });
    expect(body.items).toHaveLength(2);
    const ids = idsOf(body);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const second = bodyOf(await list(app, { size: 2, page: 2 }), 200);
    expect(second.items[0]!.id).toBeLessThan(ids[1]!);

    const all = bodyOf(await list(app, { size: 100 }), 200);
    expect(idsOf(all)).toEqual([...idsOf(all)].sort((a, b) => b - a));
    for (const item of all.items) expect(item).not.toHaveProperty('profileImage');
    const aliceItem = all.items.find((item) => item.id === alice.id);
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
    expect(Object.keys(aliceItem!).sort()).not.toContain('profileImage');
  });

  test('answers an empty page past the end with the real total; offset pages stop at 10,000 rows', async ({ app }) => {
    const body = bodyOf(await list(app, { page: 100, size: 100 }), 200);
    expect(body.items).toEqual([]);
    expect(body.total).toBeGreaterThan(0);
    expect(body.nextCursor).toBeNull();
    problemOf(await list(app, { page: 101, size: 100 }), 400, 'OFFSET_TOO_DEEP');
  });

  test('pages by cursor to the end, the same rows as the offset pages, with the total on every page', async ({
    app,
  }) => {
    const total = (await app.db.select().from(member)).length;
    const everyone = idsOf(bodyOf(await list(app, { size: 100 }), 200));
    const walked: number[] = [];
    let cursor: string | null = null;
    do {
      const query: ListQuery = cursor === null ? { size: 2 } : { size: 2, cursor, page: 7 };
      const body: AdminMemberPage = bodyOf(await list(app, query), 200);
      expect(body).toMatchObject({ page: 1, size: 2, total, totalIsLowerBound: false });
      walked.push(...idsOf(body));
      cursor = body.nextCursor;
    } while (cursor !== null);
    expect(walked).toEqual(everyone);
    expect((await list(app, { cursor: 'bm90LWEtY3Vyc29y' })).body).toMatchObject({ code: 'CURSOR_INVALID' });
  });

  test('keeps the unfiltered total in step with sign-ups and deletions (the maintained count)', async ({ app }) => {
    const totalOf = async () => bodyOf(await list(app, { size: 1 }), 200).total;
    const before = await totalOf();
    const added = await createMemberWithSession(app, { plan: 'FREE' });
    expect(await totalOf()).toBe(before + 1);
    expect((await apiOf(app).admin.deleteMember({ params: { id: added.id } })).status).toBe(204);
    expect(await totalOf()).toBe(before);
    expect(before).toBe((await app.db.select().from(member)).length);
  });

  test('searches e-mail and display name case-insensitively', async ({ app }) => {
    const byMarker = bodyOf(await list(app, { q: marker.toUpperCase() }), 200);
    expect(idsOf(byMarker)).toEqual([carol.id, bob.id, alice.id]);
    expect(byMarker.total).toBe(3);

    const byName = bodyOf(await list(app, { q: `bob ${marker}` }), 200);
    expect(idsOf(byName)).toEqual([bob.id]);

    const byEmail = bodyOf(await list(app, { q: `ALICE.${marker}` }), 200);
    expect(idsOf(byEmail)).toEqual([alice.id]);

    const paged = bodyOf(await list(app, { q: marker, size: 1, page: 2 }), 200);
    expect(paged).toMatchObject({ page: 2, size: 1, total: 3 });
    expect(idsOf(paged)).toEqual([bob.id]);
  });

  test('matches % and _ literally', async ({ app }) => {
    const percent = bodyOf(await list(app, { q: `${marker}%` }), 200);
    expect(idsOf(percent)).toEqual([carol.id]);
    const underscore = bodyOf(await list(app, { q: `_${marker}` }), 200);
    expect(idsOf(underscore)).toEqual([carol.id]);
    const onlyWildcards = bodyOf(await list(app, { q: '%_%' }), 200);
    expect(onlyWildcards.total).toBe(0);
    expect(likeContains('a%b_c\\d')).toBe('%a\\%b\\_c\\\\d%');
  });

  test('treats a blank q as no filter', async ({ app }) => {
    const total = (await app.db.select().from(member)).length;
    expect(bodyOf(await list(app, { q: '  ' }), 200).total).toBe(total);
  });

  test('rejects bad paging with 400', async ({ app }) => {
    for (const query of [{ page: 0 }, { size: 0 }, { size: 101 }, { page: 'abc' as never }, { q: 'x'.repeat(101) }]) {
      const response = await list(app, query);
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.body).toMatchObject({ code: 'VALIDATION_FAILED' });
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

    const response = await apiOf(app).admin.setMemberPlan({ params: { id: target.id }, body: { plan: 'PREMIUM' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: target.id,
      plan: 'PREMIUM',
      planExpiresAt: null,
      planProduct: null,
      planAutoRenew: false,
    });
    expect(response.body).not.toHaveProperty('profileImage');
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

    const response = await apiOf(app).admin.setMemberPlan({ params: { id: target.id }, body: { plan: 'FREE' } });
    expect(response.status).toBe(200);
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
    for (const [id, body] of [
      [target.id, { plan: 'GOLD' }],
      [target.id, {}],
      ['abc', { plan: 'PREMIUM' }],
      ['0', { plan: 'PREMIUM' }], // as text: the client leaves a numeric 0 out of the path
    ] as const) {
      const response = await apiOf(app).admin.setMemberPlan({ params: { id: id as never }, body: body as never });
      expect(response.status, `${id} ${JSON.stringify(body)}`).toBe(400);
      expect(response.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    expect((await memberRow(app, target.id))?.plan).toBe('FREE');
  });
});

describe('PUT /api/admin/members/:id/role', () => {
  test('promotes and demotes, and the live session follows at once', async ({ app }) => {
    const target = await createMemberWithSession(app);
    const listAs = async () => (await apiOf(app, target).admin.listMembers()).status;
    const setRole = (role: 'ADMIN' | 'USER') =>
      apiOf(app).admin.setMemberRole({ params: { id: target.id }, body: { role } });
    expect(await listAs()).toBe(403);

    const promoted = await setRole('ADMIN');
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ id: target.id, role: 'ADMIN' });
    expect((await app.services.sessions.resolve(target.token))?.role).toBe('ADMIN');
    expect(await listAs()).toBe(200);

    const demoted = await setRole('USER');
    expect(demoted.body).toMatchObject({ role: 'USER' });
    expect(await listAs()).toBe(403);
    expect((await memberRow(app, target.id))?.role).toBe('USER');
  });

  test('rejects an unknown role with 400', async ({ app }) => {
    const target = await createMemberWithSession(app);
    const response = await apiOf(app).admin.setMemberRole({
      params: { id: target.id },
      body: { role: 'ROOT' as never },
    });
    expect(response.status).toBe(400);
  });
});

describe('PUT /api/admin/members/:id/status', () => {
  test('suspending revokes every session and keeps the data; reactivating lets the member back', async ({ app }) => {
    const target = await createMemberWithSession(app);
    const second = (await app.services.sessions.open(target.id, { rememberMe: false }))!;
    await app.db.insert(pointHistory).values({ memberId: target.id, amount: 10, reason: 'POST' });
    await app.db.insert(category).values({ memberId: target.id, name: 'Food', type: 'EXPENSE' });
    expect(await app.services.sessions.resolve(target.token)).not.toBeNull();

    const setStatus = (status: 'ACTIVE' | 'SUSPENDED') =>
      apiOf(app).admin.setMemberStatus({ params: { id: target.id }, body: { status } });
    const response = await setStatus('SUSPENDED');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: target.id, status: 'SUSPENDED' });

    expect(await app.services.sessions.resolve(target.token)).toBeNull();
    expect(await app.services.sessions.resolve(second.token)).toBeNull();
    expect(await cachedSession(app, target.token)).toBeNull();
    expect(await sessionRows(app, target.id)).toEqual([]);
    const revoked = await apiOf(app, target).admin.listMembers();
    expect(revoked.status).toBe(401);

    expect((await memberRow(app, target.id))?.status).toBe('SUSPENDED');
    expect(await app.db.select().from(pointHistory).where(eq(pointHistory.memberId, target.id))).toHaveLength(1);
    expect(await app.db.select().from(category).where(eq(category.memberId, target.id))).toHaveLength(1);

    const reactivated = await setStatus('ACTIVE');
    expect(reactivated.status).toBe(200);
    expect((await memberRow(app, target.id))?.status).toBe('ACTIVE');
  });

  test('a suspended member cannot log in until reactivated', async ({ app }) => {
    const target = await createMemberWithSession(app);
    await app.db
      .update(member)
      .set({ passwordHash: await hasher.hash('correct horse') })
      .where(eq(member.id, target.id));
    const login = () => apiOf(app, null).auth.login({ body: { email: target.email, password: 'correct horse' } });
    const setStatus = (status: 'ACTIVE' | 'SUSPENDED') =>
      apiOf(app).admin.setMemberStatus({ params: { id: target.id }, body: { status } });
    expect((await login()).status).toBe(200);

    await setStatus('SUSPENDED');
    problemOf(await login(), 403, 'ACCOUNT_SUSPENDED');
    expect(await sessionRows(app, target.id)).toEqual([]);

    await setStatus('ACTIVE');
    expect((await login()).status).toBe(200);
  });

  test('rejects an unknown status with 400', async ({ app }) => {
    const target = await createMemberWithSession(app);
    const response = await apiOf(app).admin.setMemberStatus({
      params: { id: target.id },
      body: { status: 'BANNED' as never },
    });
    expect(response.status).toBe(400);
  });
});

describe('DELETE /api/admin/members/:id', () => {
  test('deletes the member, their data and sessions; a second delete is 404', async ({ app }) => {
    const target = await createMemberWithSession(app);
    await app.db.insert(pointHistory).values({ memberId: target.id, amount: 10, reason: 'POST' });
    await app.db.insert(category).values({ memberId: target.id, name: 'Food', type: 'EXPENSE' });
    await app.services.sessions.resolve(target.token);

    const remove = () => apiOf(app).admin.deleteMember({ params: { id: target.id } });
    const response = await remove();
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined(); // the client's reading of an empty body
    expect(await memberRow(app, target.id)).toBeUndefined();
    expect(await app.db.select().from(category).where(eq(category.memberId, target.id))).toEqual([]);
    expect(await app.services.sessions.resolve(target.token)).toBeNull();

    problemOf(await remove(), 404, 'NOT_FOUND');
  });
});

describe('unknown members and the admin themselves', () => {
  const unknownId = 2_000_000_000;

  test('answers 404 for an unknown id on every member operation', async ({ app }) => {
    const api = apiOf(app);
    const params = { id: unknownId };
    const requests = [
      api.admin.setMemberPlan({ params, body: { plan: 'PREMIUM' } }),
      api.admin.setMemberRole({ params, body: { role: 'ADMIN' } }),
      api.admin.setMemberStatus({ params, body: { status: 'SUSPENDED' } }),
      api.admin.deleteMember({ params }),
    ];
    for (const response of await Promise.all(requests)) problemOf(response, 404, 'NOT_FOUND');
  });

  test('refuses every change of the admin’s own account with 403 CANNOT_MODIFY_SELF', async ({ app }) => {
    const self = await createMemberWithSession(app, { role: 'ADMIN' });
    const api = apiOf(app, self);
    const params = { id: self.id };
    const responses = [
      await api.admin.setMemberPlan({ params, body: { plan: 'PREMIUM' } }),
      await api.admin.setMemberRole({ params, body: { role: 'USER' } }),
      await api.admin.setMemberStatus({ params, body: { status: 'SUSPENDED' } }),
      await api.admin.deleteMember({ params }),
    ];
    for (const response of responses) problemOf(response, 403, 'CANNOT_MODIFY_SELF');
    expect(await memberRow(app, self.id)).toMatchObject({ plan: 'FREE', role: 'ADMIN', status: 'ACTIVE' });
    expect((await app.services.sessions.resolve(self.token))?.role).toBe('ADMIN');
  });

  test('lets one admin act on another admin', async ({ app }) => {
    const other = await createMemberWithSession(app, { role: 'ADMIN' });
    const response = await apiOf(app).admin.setMemberRole({ params: { id: other.id }, body: { role: 'USER' } });
    expect(response.status).toBe(200);
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
    const response = await apiOf(app, target).admin.listMembers();
    expect(response.status).toBe(200);
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
