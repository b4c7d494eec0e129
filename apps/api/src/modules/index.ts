import type { FastifyPluginAsync } from 'fastify';

/**
 * The areas the api serves, one module each. An area whose issue has not landed is absent here, so its
 * routes answer 404 rather than pretending to work.
 */
export const modules: FastifyPluginAsync[] = [];
