import { type CommitHook, runWithCommitHook } from '@nestegg/db';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { contractRouteOf } from '../lib/contract-route.js';
import { type HeldKey, type IdempotencyScope, IdempotencyStore, requestHashOf } from '../lib/idempotency-store.js';
import { problemInsteadOf } from './error-handler.js';

/** A claimed key, and the hook that ties every write of the handler to it (decision FO20). */
interface IdempotentRequest {
  held: HeldKey;
  hook: CommitHook & { active: boolean };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request claimed an `Idempotency-Key`: its answer is stored for retries. */
    idempotency: IdempotentRequest | null;
  }
}

const KEY_FORMAT = /^[A-Za-z0-9._:-]{8,128}$/;

/** A route takes part when its contract declares the `Idempotency-Key` header: the contract is the opt-in. */
function acceptsIdempotencyKey(request: FastifyRequest): boolean {
  const route = contractRouteOf(request);
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
 * answers the first answer again (with `Idempotent-Replayed: true`) instead of creating twice. The handler
 * runs with a commit hook: each of its transactions (and each auto-commit write) marks the key committed
 * as its last statement, so once anything was written the request is never run again, even when the
 * answer could not be stored.
 */
export default fp(
  async (app) => {
    const store = new IdempotencyStore({ db: app.db, clock: app.services.clock });
    app.decorateRequest('idempotency', null);

    // Callback style: `done` is called inside the hook's async context, so the handler runs within it.
    app.addHook('preHandler', (request, reply, done) => {
      const scope = scopeOf(request);
      if (!scope) {
        done();
        return;
      }
      store
        .claim(scope)
        .then((claim) => {
          if (claim.kind === 'claimed') {
            const held = claim.held;
            const hook = {
              active: true,
              beforeCommit: (tx: Parameters<CommitHook['beforeCommit']>[0]) => store.markCommitted(held, tx),
            };
            request.idempotency = { held, hook };
            runWithCommitHook(hook, () => done());
            return;
          }
          const type = claim.status >= 400 ? 'application/problem+json' : 'application/json';
          reply.header('idempotent-replayed', 'true').code(claim.status);
          if (claim.body === null) reply.send();
          else reply.type(type).send(JSON.stringify(claim.body));
        }, done)
        // Fastify catches what the handler throws; this only keeps anything else from becoming an
        // unhandled rejection (which would stop the process).
        .catch((error: unknown) => request.log.error({ err: error }, 'idempotency: the request could not go on'));
    });

    const storeOutcome = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const idempotent = request.idempotency!;
      request.idempotency = null;
      // The handler is over: what runs after it (in this async context) is not tied to the key.
      idempotent.hook.active = false;
      try {
        if (reply.statusCode >= 500) await store.release(idempotent.held);
        else await store.complete(idempotent.held, reply.statusCode, storedBody(payload));
      } catch (error) {
        // Storing the outcome failed (the database went away): still a problem+json answer (decision FO2).
        return problemInsteadOf(error, request, reply);
      }
      return payload;
    };

    // Callback style, so requests without a key (nearly all) pass without a promise (P21).
    app.addHook('onSend', (request, reply, payload, done) => {
      if (!request.idempotency) return done(null, payload);
      storeOutcome(request, reply, payload).then((sent) => done(null, sent), done);
    });
  },
  { name: 'idempotency', dependencies: ['infrastructure', 'authentication'] },
);
