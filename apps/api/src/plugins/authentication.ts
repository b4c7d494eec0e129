import type { AuthLevel } from '@nestegg/contract';
import type { AppRoute } from '@ts-rest/core';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ForbiddenError, PremiumRequiredError, UnauthenticatedError } from '../lib/errors.js';
import { isPremiumOrAdmin } from '../lib/session.js';
import type { ActiveSession } from '../modules/auth/session.store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's session; null for anonymous callers and on public routes. */
    session: ActiveSession | null;
    /** The bearer token the session was resolved from (logout needs it). */
    sessionToken: string | null;
  }
}

export function authLevelOf(request: FastifyRequest): AuthLevel {
  const route = (request.routeOptions.config as { tsRestRoute?: AppRoute }).tsRestRoute;
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

export default fp(
  async (app) => {
    const { sessions } = app.services;
    app.decorateRequest('session', null);
    app.decorateRequest('sessionToken', null);

    app.addHook('onRequest', async (request) => {
      const level = authLevelOf(request);
      if (level === 'public') return;
      const token = bearerToken(request);
      if (token) {
        request.session = await sessions.resolve(token);
        request.sessionToken = request.session ? token : null;
      }
      enforceAuthLevel(level, request.session);
    });
  },
  { name: 'authentication', dependencies: ['infrastructure'] },
);
