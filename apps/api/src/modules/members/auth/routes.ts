import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { credentialsHandlers } from './credentials.routes.js';
import { identityProviderHandlers } from './identity-providers.routes.js';
import { profileHandlers } from './profile.routes.js';
import { sessionHandlers } from './sessions.routes.js';

/** The member area's routes but the avatar (`/api/auth/...`): the avatars module serves that one. */
const { avatar: _servedByAvatars, ...authRoutes } = contract.auth;

/** The member area (`/api/auth/...`). */
export default async function authModule(app: FastifyInstance) {
  registerContractRouter(app, authRoutes, {
    ...credentialsHandlers(app),
    ...identityProviderHandlers(app),
    ...profileHandlers(app),
    ...sessionHandlers(app),
  });
}
