import type { AppRoute } from '@ts-rest/core';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type IdempotencyScope, IdempotencyStore, requestHashOf } from '../lib/idempotency-store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request claimed an `Idempotency-Key`: its answer is stored for retries. */
    idempotency: IdempotencyScope | null;
  }
}

const KEY_FORMAT = /^[A-Za-z0-9._:-]{8,128}$/;

/** A route takes part when its contract declares the `Idempotency-Key` header: the contract is the opt-in. */
function acceptsIdempotencyKey(request: FastifyRequest): boolean {
  const route = (request.routeOptions.config as { tsRestRoute?: AppRoute }).tsRestRoute;
  const headers = route?.headers as { shape?: Record<string, unknown> } | undefined;
  return headers?.shape?.['idempotency-key'] !== undefined;
}

function scopeOf(request: FastifyRequest): IdempotencyScope | null {
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string' || !KEY_FORMAT.test(key) || !request.session || !acceptsIdempotencyKey(request)) {
    return null;
  }
  const route = `${request.method} ${request.routeOptions.url}`;
  return {
    memberId: request.session.memberId,
    route,
    key,
    requestHash: requestHashOf(request.method, request.url, request.body),
  };
}

function storedBody(payload: unknown): unknown {
  if (typeof payload !== 'string' || payload === '') return null;
  try {
    return JSON.parse(payload);
  } catch {
    return null;
  }
}

/**
 * `Idempotency-Key` on creating routes (their contract declares the header): a retry of the same request
 * answers the first answer again (with `Idempotent-Replayed: true`) instead of creating twice.
 */
export default fp(
  async (app) => {
    const store = new IdempotencyStore({ db: app.db, clock: app.services.clock });
    app.decorateRequest('idempotency', null);

    app.addHook('preHandler', async (request, reply) => {
      const scope = scopeOf(request);
      if (!scope) return;
      const claim = await store.claim(scope);
      if (claim.kind === 'claimed') {
        request.idempotency = scope;
        return;
      }
      const type = claim.status >= 400 ? 'application/problem+json' : 'application/json';
      reply.header('idempotent-replayed', 'true').code(claim.status);
      return claim.body === null ? reply.send() : reply.type(type).send(JSON.stringify(claim.body));
    });

    app.addHook('onSend', async (request, reply, payload) => {
      const scope = request.idempotency;
      if (!scope) return payload;
      request.idempotency = null;
      if (reply.statusCode >= 500) await store.release(scope);
      else await store.complete(scope, reply.statusCode, storedBody(payload));
      return payload;
    });
  },
  { name: 'idempotency', dependencies: ['infrastructure', 'authentication'] },
);
