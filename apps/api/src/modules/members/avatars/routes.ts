import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';

/** A year: the URL changes with the picture, so a cached copy never goes stale. */
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * `GET /api/auth/avatars/:key`: a member's own picture, public and cached for a year. The stored type is sent
 * with `nosniff` (a baseline header), and other origins may embed it (`Cross-Origin-Resource-Policy:
 * cross-origin`).
 */
export default async function avatarsModule(app: FastifyInstance) {
  const { avatars } = app.services;
  registerContractRouter(
    app,
    { avatar: contract.auth.avatar },
    {
      avatar: async ({ params, reply }) => {
        const avatar = await avatars.picture(params.key);
        reply
          .header('content-type', avatar.contentType)
          .header('cache-control', CACHE_CONTROL)
          .header('cross-origin-resource-policy', 'cross-origin');
        return { status: 200, body: avatar.bytes };
      },
    },
  );
}
