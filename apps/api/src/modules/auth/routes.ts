import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../lib/contract-router.js';
import { avatarHandlers } from '../avatars/routes.js';
import { credentialsHandlers } from './credentials.routes.js';
import { identityProviderHandlers } from './identity-providers.routes.js';
import { profileHandlers } from './profile.routes.js';
import { sessionHandlers } from './sessions.routes.js';

/** The member area (`/api/auth/...`). */
export default async function authModule(app: FastifyInstance) {
  registerContractRouter(app, contract.auth, {
    ...credentialsHandlers(app),
    ...identityProviderHandlers(app),
    ...profileHandlers(app),
    ...sessionHandlers(app),
    ...avatarHandlers(app),
  });
}
