import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AllowedMethods } from '../lib/allowed-methods.js';
import { sendProblem } from './error-handler.js';

const hasParameters = (params: unknown): boolean => {
  for (const _ in params as object) return true;
  return false;
};

const pathOf = (request: FastifyRequest): string => request.url.split('?')[0] ?? '';

/**
 * The methods of the path when the request's method is not one of them, else null: a path no route matched
 * (whatever the method), or a literal path the router gave to a sibling's parameter (C48).
 */
function unservedMethod(request: FastifyRequest, allowedMethods: AllowedMethods): string[] | null {
  if (request.is404) {
    const allow = allowedMethods.allowed(pathOf(request));
    return allow.length > 0 && !allow.includes(request.method) ? allow : null;
  }
  if (!hasParameters(request.params)) return null;
  const url = request.routeOptions.url ?? '';
  return url.includes(':') ? allowedMethods.ownedElsewhere(url, pathOf(request)) : null;
}

function sendMethodNotAllowed(request: FastifyRequest, reply: FastifyReply, allow: string[]): FastifyReply {
  reply.header('allow', allow.join(', '));
  return sendProblem(request, reply, {
    code: 'METHOD_NOT_ALLOWED',
    detail: `${request.method} is not served on this path; see Allow.`,
  });
}

function sendNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const detail = `No route ${request.method} ${pathOf(request)}.`;
  return sendProblem(request, reply, { code: 'NOT_FOUND', detail });
}

/**
 * A method a path does not have answers 405 with `Allow` (C30), a path no route has 404, before anything else
 * reads the request (C48): its body (a `QUERY` without a `Content-Type`, a `PATCH` of broken JSON or of text),
 * its session or its parameters. Registered after the edge (security and CORS headers, draining) and before
 * everything else, so its `onRequest` hook comes before authentication's; and before any route, so its `onRoute`
 * hook sees them all.
 */
export default fp(
  async (app) => {
    const allowedMethods = new AllowedMethods();
    app.addHook('onRoute', (route) => allowedMethods.add(route.method, route.url));
    app.addHook('onRequest', (request, reply, done) => {
      if (!request.is404 && !hasParameters(request.params)) return done();
      const allow = unservedMethod(request, allowedMethods);
      // Answered here: `done` is not called, so nothing after this hook runs.
      if (allow) sendMethodNotAllowed(request, reply, allow);
      else if (request.is404) sendNotFound(request, reply);
      else done();
    });
    // Reached only when something calls `callNotFound` after the hook: the same answer.
    app.setNotFoundHandler((request, reply) => {
      const allow = unservedMethod(request, allowedMethods);
      return allow ? sendMethodNotAllowed(request, reply, allow) : sendNotFound(request, reply);
    });
  },
  { name: 'unserved-methods', dependencies: ['error-handler'] },
);
