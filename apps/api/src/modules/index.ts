import type { FastifyPluginAsync } from 'fastify';
import adminModule from './admin/routes.js';
import authModule from './auth/routes.js';

/**
 * The areas the api serves, one module each. An area whose issue has not landed is absent here, so its
 * routes answer 404 rather than pretending to work.
 */
export const modules: FastifyPluginAsync[] = [authModule, adminModule];
