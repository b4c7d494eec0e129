/**
 * The typed client narrows problem codes per route and per status (decision C32): a login's problems carry no
 * billing code, and an exhaustive `switch` over a route's codes needs only that route's cases.
 */
import type { AppRoute, ClientInferResponses } from '@ts-rest/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { authContract, ProblemCode } from '../src/index.js';

type ProblemOf<R extends AppRoute> = Extract<ClientInferResponses<R>, { body: { code: ProblemCode } }>;
type LoginProblem = ProblemOf<typeof authContract.login>;

/** Every case of a login's problem, no other: `never` in the default proves the switch exhaustive. */
const loginMessage = (problem: LoginProblem): string => {
  switch (problem.body.code) {
    case 'VALIDATION_FAILED':
    case 'MALFORMED_JSON':
      return 'Check the form.';
    case 'UNAUTHENTICATED':
      return 'Wrong e-mail or password.';
    case 'ACCOUNT_SUSPENDED':
      return 'This account is suspended.';
    case 'RATE_LIMITED':
      return 'Too many attempts; wait a moment.';
    case 'PAYLOAD_TOO_LARGE':
    case 'UNSUPPORTED_MEDIA_TYPE':
    case 'METHOD_NOT_ALLOWED':
    case 'INTERNAL_ERROR':
      return 'Something went wrong.';
    case 'OVERLOADED':
    case 'SERVICE_UNAVAILABLE':
    case 'DATABASE_UNAVAILABLE':
      return 'Try again in a few seconds.';
    default: {
      const unreachable: never = problem.body;
      return unreachable;
    }
  }
};

describe('problem codes in the client types', () => {
  it("a login's problems are its own codes, none of billing's", () => {
    expectTypeOf<LoginProblem['body']['code']>().toEqualTypeOf<
      | 'VALIDATION_FAILED'
      | 'MALFORMED_JSON'
      | 'UNAUTHENTICATED'
      | 'ACCOUNT_SUSPENDED'
      | 'RATE_LIMITED'
      | 'PAYLOAD_TOO_LARGE'
      | 'UNSUPPORTED_MEDIA_TYPE'
      | 'METHOD_NOT_ALLOWED'
      | 'INTERNAL_ERROR'
      | 'OVERLOADED'
      | 'SERVICE_UNAVAILABLE'
      | 'DATABASE_UNAVAILABLE'
    >();
    expectTypeOf<'NO_SUBSCRIPTION'>().not.toExtend<LoginProblem['body']['code']>();
  });

  it('narrows the code by the status', () => {
    expectTypeOf<Extract<LoginProblem, { status: 403 }>['body']['code']>().toEqualTypeOf<'ACCOUNT_SUSPENDED'>();
    expectTypeOf<Extract<LoginProblem, { status: 400 }>['body']['code']>().toEqualTypeOf<
      'VALIDATION_FAILED' | 'MALFORMED_JSON'
    >();
  });

  it('an exhaustive switch over a route needs only its cases', () => {
    const problem = { status: 403, body: { code: 'ACCOUNT_SUSPENDED' } } as LoginProblem;
    expect(loginMessage(problem)).toBe('This account is suspended.');
  });
});
