/**
 * Contract-wide robustness: every route the api serves gets generated bad input derived from its own
 * zod schemas (wrong types, missing and unknown fields, broken and oversized bodies, hostile strings and
 * numbers, hostile path segments and query values). Each answer must be a status the route declares,
 * a problem+json body with a known `code` for errors, within 2 s, with no stack trace or SQL in it; and
 * the api must still serve a valid request afterwards. A route registered by any later area is covered
 * the moment it is served.
 */
import { type AuthLevel, contract, ProblemCodeSchema } from '@nestegg/contract';
import type { AppRoute } from '@ts-rest/core';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { createMemberWithSession } from './test/app.js';
import { contractRoutes } from './test/contract-routes.js';
import { test } from './test/fixtures.js';
import { casesFor, type RobustnessCase, type RouteTarget, validBodyOf } from './test/robustness/cases.js';

const SEED = Number(process.env.ROBUSTNESS_SEED ?? 20261122);
const MAX_MILLISECONDS = 2000;
const LEAKS = [
  /\n\s+at /,
  /node_modules/,
  /\.(ts|js):\d+/,
  /\b(SELECT|INSERT INTO|DELETE FROM)\b/,
  /\bUPDATE "?\w+"? SET\b/,
  /SQLSTATE|postgres(ql)?:\/\//i,
];

const levelOf = (route: AppRoute) => (route.metadata as { auth: AuthLevel }).auth;

async function headersFor(app: FastifyInstance, level: AuthLevel): Promise<Record<string, string>> {
  if (level === 'public') return {};
  const kind =
    level === 'admin'
      ? { role: 'ADMIN' as const }
      : { plan: level === 'premium' ? ('PREMIUM' as const) : ('FREE' as const) };
  return (await createMemberWithSession(app, kind)).headers;
}

function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/:([A-Za-z]+)/g, (_match, name: string) => params[name] ?? '1');
}

/** What is wrong with one answer, or nothing. */
function problemsWith(route: AppRoute, response: LightMyRequestResponse, elapsedMs: number): string[] {
  const problems: string[] = [];
  const declared = Object.keys(route.responses).map(Number);
  if (!declared.includes(response.statusCode)) problems.push(`undeclared status ${response.statusCode}`);
  if (response.statusCode >= 500 && response.statusCode !== 503) problems.push(`server error ${response.statusCode}`);
  if (elapsedMs > MAX_MILLISECONDS) problems.push(`took ${Math.round(elapsedMs)} ms`);
  if (response.statusCode >= 400) {
    if (!String(response.headers['content-type']).startsWith('application/problem+json')) {
      problems.push(`content-type ${response.headers['content-type']}`);
    } else if (!ProblemCodeSchema.safeParse(response.json().code).success) {
      problems.push(`unknown code ${response.json().code}`);
    }
  }
  const leak = LEAKS.find((pattern) => pattern.test(response.body));
  if (leak) problems.push(`body leaks ${leak}: ${response.body.slice(0, 200)}`);
  return problems;
}

/**
 * The valid body the per-field cases start from: it must pass the route's own schema, or a hostile field
 * could be refused for another field's fault and the case would prove nothing.
 */
function baselineBodyProblem(route: AppRoute): string | null {
  if (!('body' in route) || !(route.body instanceof z.ZodType)) return null;
  const body = route.body as z.ZodTypeAny;
  const parsed = body.safeParse(validBodyOf(route, body));
  return parsed.success ? null : `the generated valid body fails the schema: ${parsed.error.issues[0]?.message}`;
}

async function stillServes(app: FastifyInstance): Promise<boolean> {
  const { headers } = await createMemberWithSession(app);
  return (await app.inject({ method: 'GET', url: '/api/auth/profile', headers })).statusCode === 200;
}

describe('robustness of every served route', () => {
  test('answers generated bad input with a declared problem, quickly, and keeps serving', async ({ app }) => {
    const served = contractRoutes(contract);
    // Every contract route: one missing from the api fails here rather than being left out of the suite.
    expect(served.filter((route) => !app.hasRoute({ method: route.method, url: route.path }))).toEqual([]);
    const failures: string[] = [];
    let cases = 0;
    for (const [index, route] of served.entries()) {
      const level = levelOf(route);
      const baselineProblem = baselineBodyProblem(route);
      if (baselineProblem) failures.push(`${route.method} ${route.path}: ${baselineProblem}`);
      let headers = await headersFor(app, level);
      const target: RouteTarget = { route, url: (params) => fillPath(route.path, params), headers };
      for (const testCase of casesFor(target, SEED + index) as RobustnessCase[]) {
        const started = performance.now();
        const response = await app.inject({
          method: testCase.method as 'GET',
          url: testCase.url,
          headers: { ...testCase.headers, ...headers },
          ...(testCase.payload === undefined ? {} : { payload: testCase.payload }),
          remoteAddress: `10.77.${index % 250}.${cases % 250}`,
        });
        cases += 1;
        for (const problem of problemsWith(route, response, performance.now() - started)) {
          failures.push(`${route.method} ${route.path} [${testCase.name}]: ${problem}`);
        }
        // The case may have passed validation and ended the session (logout, withdrawal): start afresh.
        if (response.statusCode < 300) headers = await headersFor(app, level);
      }
      if (!(await stillServes(app))) failures.push(`${route.method} ${route.path}: a valid request fails afterwards`);
    }
    console.info(`robustness: ${cases} cases over ${served.length} served routes (seed ${SEED})`);
    expect(failures).toEqual([]);
  }, 600_000);
});
