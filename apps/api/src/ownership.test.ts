/**
 * The ownership matrix: every served route that names a member-owned resource is called by another
 * member with their own valid session, and must answer 404 (the resource does not exist for them)
 * leaving the owner's data unchanged. Admin-only routes are tried with a USER session (403) and premium
 * routes with a FREE session (403 PREMIUM_REQUIRED). A route that names a resource nobody registered a
 * factory for fails, so a new area cannot skip the matrix.
 */
import { type AuthLevel, contract, listRoutes } from '@nestegg/contract';
import type { AppRoute } from '@ts-rest/core';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { createMemberWithSession, type TestMember } from './test/app.js';
import { test } from './test/fixtures.js';
import type { OwnedResource } from './test/ownership/registry.js';
import { ownedResources } from './test/ownership/resources.js';
import { fieldsOf, sampleOf } from './test/robustness/schema-walk.js';

const levelOf = (route: AppRoute) => (route.metadata as { auth: AuthLevel }).auth;
/**
 * Fields named like ids that name no row of ours: the stores' product, order and transaction ids. (A purchase
 * another member holds is refused with 409 PURCHASE_OWNED_ELSEWHERE: billing/verify.test.ts, appstore.test.ts.)
 */
const externalIdFields = new Set(['productId', 'orderId', 'transactionId']);
const isResourceField = (key: string) => /Ids?$/.test(key) && !externalIdFields.has(key);
/** A reorder names every row it orders; another member's id makes the list wrong: 400 INVALID_REORDER. */
const REORDER_FIELD = 'ids';
const bodySchemaOf = (route: AppRoute) =>
  'body' in route && route.body instanceof z.ZodType ? (route.body as z.ZodTypeAny) : undefined;

interface Reference {
  /** Where the id goes: the path `:id`, or a body/query field. */
  place: 'path' | 'body' | 'query';
  key: string;
  resource: OwnedResource | undefined;
}

function referencesOf(key: string, route: AppRoute): Reference[] {
  const byRoute = ownedResources.find((resource) =>
    resource.routes.some((prefix) => key === prefix || key.startsWith(`${prefix}.`)),
  );
  const byField = (field: string) => ownedResources.find((resource) => resource.fields?.includes(field));
  const pathRefs = [...route.path.matchAll(/:([A-Za-z]+)/g)].map(
    (match): Reference => ({ place: 'path', key: match[1]!, resource: byRoute }),
  );
  // A reorder's `ids` list names rows of the route's own resource.
  const fieldRefs = (place: 'body' | 'query', schema: unknown) =>
    fieldsOf(schema)
      .filter((field) => isResourceField(field.key) || field.key === REORDER_FIELD)
      .map(
        (field): Reference => ({
          place,
          key: field.key,
          resource: field.key === REORDER_FIELD ? byRoute : byField(field.key),
        }),
      );
  return [...pathRefs, ...fieldRefs('body', bodySchemaOf(route)), ...fieldRefs('query', route.query)];
}

function requestFor(route: AppRoute, references: Reference[], ids: Map<Reference, number | string>) {
  let url = route.path;
  const body = (bodySchemaOf(route) ? sampleOf(bodySchemaOf(route)!) : undefined) as
    | Record<string, unknown>
    | undefined;
  const query = new URLSearchParams();
  for (const reference of references) {
    const id = ids.get(reference)!;
    if (reference.place === 'path') url = url.replace(`:${reference.key}`, String(id));
    else if (reference.place === 'query') query.set(reference.key, String(id));
    else if (body) body[reference.key] = /[Ii]ds$/.test(reference.key) ? [id] : id;
  }
  const search = query.size > 0 ? `?${query}` : '';
  return { method: route.method as 'GET', url: `${url}${search}`, ...(body ? { payload: body } : {}) };
}

const guardCaller: Partial<Record<AuthLevel, { kind: 'FREE'; code: string }>> = {
  admin: { kind: 'FREE', code: 'ADMIN_REQUIRED' },
  premium: { kind: 'FREE', code: 'PREMIUM_REQUIRED' },
};

async function foreignCallFailures(
  app: FastifyInstance,
  key: string,
  route: AppRoute,
  references: Reference[],
): Promise<string[]> {
  const owner = await createMemberWithSession(app, { plan: 'PREMIUM' });
  const intruder: TestMember = await createMemberWithSession(app, { plan: 'PREMIUM' });
  const ids = new Map<Reference, number | string>();
  for (const reference of references) ids.set(reference, await reference.resource!.make(app, owner));
  const before = await Promise.all(
    references.map((reference) => reference.resource!.snapshot(app, ids.get(reference)!)),
  );
  const response = await app.inject({ ...requestFor(route, references, ids), headers: intruder.headers });
  const after = await Promise.all(
    references.map((reference) => reference.resource!.snapshot(app, ids.get(reference)!)),
  );
  const readable = route.method === 'GET' && references.every((reference) => reference.resource!.readableByOthers);
  const reorder = references.some((reference) => reference.key === REORDER_FIELD);
  const refused = references.find((reference) => reference.resource!.refusedToOthersWith)?.resource;
  const expected = readable
    ? '200'
    : reorder
      ? '400 INVALID_REORDER'
      : refused
        ? `403 ${refused.refusedToOthersWith}`
        : '404';
  const answered = [400, 403].includes(response.statusCode)
    ? `${response.statusCode} ${response.json().code}`
    : String(response.statusCode);
  const failures: string[] = [];
  if (answered !== expected)
    failures.push(`${key}: expected ${expected}, got ${answered} ${response.body.slice(0, 120)}`);
  if (JSON.stringify(after) !== JSON.stringify(before)) failures.push(`${key}: the owner's data changed`);
  // The same request from the owner must reach the row, or the 404 above proved nothing.
  if (references.every((reference) => !reference.resource!.hiddenFromOwner)) {
    const own = await app.inject({ ...requestFor(route, references, ids), headers: owner.headers });
    if (own.statusCode === 404) failures.push(`${key}: its owner gets 404 too, so the factory does not fit the route`);
  }
  return failures;
}

describe('ownership matrix', () => {
  test("no member reaches another member's resources, and guarded routes refuse the wrong caller", async ({ app }) => {
    const served = listRoutes(contract);
    // Every contract route: one missing from the api fails here rather than being left out of the matrix.
    expect(served.filter(({ route }) => !app.hasRoute({ method: route.method, url: route.path }))).toEqual([]);
    const failures: string[] = [];
    let cases = 0;
    for (const { key, route } of served) {
      const level = levelOf(route);
      const guard = guardCaller[level];
      if (guard) {
        const caller = await createMemberWithSession(app, { plan: guard.kind });
        const response = await app.inject({
          method: route.method as 'GET',
          url: route.path.replace(/:[A-Za-z]+/g, '1'),
          headers: caller.headers,
        });
        cases += 1;
        if (response.statusCode !== 403 || response.json().code !== guard.code) {
          failures.push(`${key}: a ${guard.kind} caller got ${response.statusCode} instead of 403 ${guard.code}`);
        }
      }
      // Admin routes act on any member by design; their guard is what protects them.
      if (level === 'admin') continue;
      const references = referencesOf(key, route);
      if (references.length === 0) continue;
      const unregistered = references.filter((reference) => !reference.resource);
      if (unregistered.length > 0) {
        failures.push(
          `${key}: no owned-resource factory for ${unregistered.map((r) => `${r.place} ${r.key}`).join(', ')}`,
        );
        continue;
      }
      cases += 1;
      failures.push(...(await foreignCallFailures(app, key, route, references)));
    }
    console.info(`ownership matrix: ${cases} (route, verb, caller) cases over ${served.length} served routes`);
    expect(failures).toEqual([]);
  }, 300_000);
});
