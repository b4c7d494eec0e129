/**
 * Every status the api can send on a route is declared on it, so the typed client's response union
 * and the OpenAPI document are complete. The rules follow where each status comes from.
 */
import { isZodType } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { declaredProblemCodes, problemCodeStatus, routeAuth } from '../src/index.js';
import { type RouteEntry, routes } from './routes.js';

/** The routes with a failure, attempt or cost limit (M4, M18, receipts, quotes): 429 with `Retry-After`. */
const RATE_LIMITED = [
  'auth.signup',
  'auth.login',
  'auth.idpOneLogin',
  'auth.idpTwoLogin',
  'auth.changePassword',
  'auth.setPassword',
  'auth.verifyPassword',
  'auth.reauthenticate',
  'board.createPost',
  'board.updatePost',
  'board.createComment',
  'board.updateComment',
  'board.votePost',
  'board.voteComment',
  'board.reportPost',
  'board.reportComment',
  'board.uploadImage',
  'ledger.investments.quote',
  'ledger.receipts.recognize',
  'ledger.imports.upload',
];

const takesBody = (r: RouteEntry): boolean => 'body' in r.route && isZodType(r.route.body);
/** Fastify parses the body of these methods whatever the route declares. */
const carriesBody = (r: RouteEntry): boolean => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method);
const hasPathParams = (r: RouteEntry): boolean => r.route.path.includes(':');

/** The statuses a route can produce whatever its handler does. */
const requiredStatuses = (r: RouteEntry): number[] => {
  const auth = routeAuth(r.route);
  const statuses = [405, 500, 503]; // unserved method; unexpected errors; overload shedding and a closing server
  if (carriesBody(r)) statuses.push(400, 413, 415); // malformed body, over the body limit, wrong media type
  if (takesBody(r)) statuses.push(400); // invalid body
  if (r.route.query || hasPathParams(r)) statuses.push(400); // invalid query or path parameters
  if (hasPathParams(r)) statuses.push(404); // no such resource
  if (auth === 'login' || auth === 'premium' || auth === 'admin') statuses.push(401); // no valid session
  if (auth === 'premium' || auth === 'admin') statuses.push(403); // not premium / not an admin
  if (RATE_LIMITED.includes(r.key)) statuses.push(429);
  return [...new Set(statuses)].sort();
};

const declared = (r: RouteEntry): number[] => Object.keys(r.route.responses).map(Number);

describe('declared statuses', () => {
  it.each(routes.map((r) => [r.key, r] as const))('%s declares every status it can produce', (_key, r) => {
    const missing = requiredStatuses(r).filter((status) => !declared(r).includes(status));
    expect(missing).toEqual([]);
  });

  it('answers 429 on the rate-limited routes only', () => {
    expect(routes.filter((r) => declared(r).includes(429)).map((r) => r.key)).toEqual(RATE_LIMITED);
  });

  it('answers every error status with a problem whose codes are those of the status (C32)', () => {
    for (const r of routes) {
      for (const status of Object.keys(r.route.responses).map(Number)) {
        if (status < 400) continue;
        const codes = declaredProblemCodes(r.route, status);
        expect(codes.length, `${r.key} ${status}`).toBeGreaterThan(0);
        for (const code of codes) expect(problemCodeStatus[code], `${r.key} ${status} ${code}`).toBe(status);
      }
    }
  });
});
