import type { AuthLevel } from '@nestegg/contract';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { contractRouteOf } from '../lib/contract-route.js';
import { ForbiddenError, PremiumRequiredError, UnauthenticatedError } from '../lib/errors.js';
import type { ActiveSession } from '../lib/session.js';
import { isPremiumOrAdmin } from '../lib/session.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's session; null for anonymous callers and on public routes. */
    session: ActiveSession | null;
    /** The bearer token the session was resolved from (logout needs it). */
    sessionToken: string | null;
  }
}

export function authLevelOf(request: FastifyRequest): AuthLevel {
  const route = contractRouteOf(request);
  const level = (route?.metadata as { auth?: AuthLevel } | undefined)?.auth;
  // A contract route without a level is a contract bug; treat it as the strictest level, never as public.
  return route ? (level ?? 'admin') : 'public';
}

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const [scheme, token] = header.split(' ');
  return scheme?.toLowerCase() === 'bearer' && token ? token : null;
}

/** Throws unless the session meets the level. Premium routes let admins through. */
export function enforceAuthLevel(level: AuthLevel, session: ActiveSession | null): void {
  if (level === 'public' || level === 'optional') return;
  if (!session) throw new UnauthenticatedError();
  if (level === 'admin' && session.role !== 'ADMIN') {
    throw new ForbiddenError('ADMIN_REQUIRED', 'This operation is for administrators.');
  }
  if (level === 'premium' && !isPremiumOrAdmin(session)) {
    throw new PremiumRequiredError();
  }
}

/** Continues the request if its session meets the route's level, else with the level's error. */
function enforced(level: AuthLevel, request: FastifyRequest, done: (error?: Error) => void): void {
  let refused: Error | undefined;
  try {
    enforceAuthLevel(level, request.session);
  } catch (error) {
    refused = error as Error;
  }
  done(refused);
}

export default fp(
  async (app) => {
    const { sessions } = app.services;
    app.decorateRequest('session', null);
    app.decorateRequest('sessionToken', null);

    // A callback hook (P21): public routes and callers without a token pass without a promise.
    app.addHook('onRequest', (request, _reply, done) => {
      const level = authLevelOf(request);
      if (level === 'public') return done();
      const token = bearerToken(request);
      if (!token) return enforced(level, request, done);
      sessions.resolve(token).then((session) => {
        request.session = session;
        request.sessionToken = session ? token : null;
        enforced(level, request, done);
      }, done);
    });
  },
  { name: 'authentication', dependencies: ['infrastructure'] },
);
