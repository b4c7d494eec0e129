import { declaredProblemCodes } from '@nestegg/contract';
import fp from 'fastify-plugin';
import { contractRouteOf } from '../lib/contract-route.js';

/**
 * Under test (`NODE_ENV=test`) every problem a contract route answers must carry a code the route declares for
 * that status (decision C32), so the whole suite checks that the contract's per-route codes are true. An
 * undeclared answer is logged and recorded; the test setup (`src/test/problem-codes.setup.ts`) fails the test
 * that caused it. The answer itself is left as it was.
 */

const RECORDED = Symbol.for('nestegg.undeclaredProblems');

/** The undeclared answers of this test process so far (shared by every app the process builds). */
export function undeclaredProblems(): string[] {
  const holder = globalThis as { [RECORDED]?: string[] };
  holder[RECORDED] ??= [];
  return holder[RECORDED];
}

function codeOf(payload: unknown): string | undefined {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return undefined;
  try {
    const code = (JSON.parse(payload) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

export default fp(
  async (app) => {
    app.addHook('onSend', async (request, reply, payload) => {
      const route = contractRouteOf(request);
      if (!route || reply.statusCode < 400) return payload;
      const code = codeOf(payload);
      const declared: readonly string[] = declaredProblemCodes(route, reply.statusCode);
      if (code === undefined || !declared.includes(code)) {
        const problem = `${route.method} ${route.path} answered ${reply.statusCode} ${code ?? '(no code)'}; it declares ${
          declared.length > 0 ? declared.join(', ') : 'no problem'
        } for ${reply.statusCode}`;
        request.log.error(problem);
        undeclaredProblems().push(problem);
      }
      return payload;
    });
  },
  { name: 'problem-code-check' },
);
