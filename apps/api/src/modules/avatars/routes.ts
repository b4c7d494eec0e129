import type { FastifyInstance } from 'fastify';
import type { AuthHandlers } from '../auth/handlers.js';

/** A year: the URL changes with the picture, so a cached copy never goes stale. */
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * `GET /api/auth/avatars/:key`: a member's own picture, public and cached for a year. Part of the member
 * area's router (the auth module registers it); the stored type is sent with `nosniff` (a baseline
 * header), and other origins may embed it (`Cross-Origin-Resource-Policy: cross-origin`).
 */
export function avatarHandlers(app: FastifyInstance): AuthHandlers<'avatar'> {
  const { avatars } = app.services;
  return {
    avatar: async ({ params, reply }) => {
      const avatar = await avatars.picture(params.key);
      reply
        .header('content-type', avatar.contentType)
        .header('cache-control', CACHE_CONTROL)
        .header('cross-origin-resource-policy', 'cross-origin');
      return { status: 200, body: avatar.bytes };
    },
  };
}
