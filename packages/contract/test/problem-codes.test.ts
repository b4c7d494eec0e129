import { describe, expect, it } from 'vitest';
import { ProblemCode, ProblemCodeSchema, ProblemSchema, problemCodeInfo } from '../src/index.js';

/** The codes the api sends today: removing one breaks clients that switch over it. */
const sentByTheApi = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'BAD_REQUEST',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'ADMIN_REQUIRED',
  'PREMIUM_REQUIRED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
  'OVERLOADED',
  'NOT_READY',
  'DATABASE_UNAVAILABLE',
  'INTERNAL_ERROR',
  'EMAIL_TAKEN',
  'SIGNUP_DISABLED',
  'ACCOUNT_SUSPENDED',
  'INVALID_PASSWORD',
  'INVALID_CURRENT_PASSWORD',
  'PASSWORD_UNCHANGED',
  'SOCIAL_ACCOUNT',
  'INVALID_IMAGE',
  'IMAGE_TOO_LARGE',
  'INVALID_ID_TOKEN',
  'PROVIDER_NOT_CONFIGURED',
  'PROVIDER_UNAVAILABLE',
  'EMAIL_NOT_VERIFIED',
  'ACCOUNT_LINKED_ELSEWHERE',
  'CANNOT_MODIFY_SELF',
  'CATEGORY_TOO_DEEP',
  'CATEGORY_TYPE_MISMATCH',
  'CATEGORY_HAS_CHILDREN',
  'DUPLICATE_CATEGORY_NAME',
  'INVALID_PARENT',
  'INVALID_REORDER',
  'AMOUNT_OUT_OF_RANGE',
];

const problem = { type: 'about:blank', title: 'Unauthorized', status: 401 };

describe('problem codes', () => {
  it('include every code the api sends', () => {
    expect(ProblemCodeSchema.options).toEqual(expect.arrayContaining(sentByTheApi));
  });

  it('have an error status and a description each', () => {
    for (const code of ProblemCodeSchema.options) {
      const info = problemCodeInfo[code];
      expect(info.status, code).toBeGreaterThanOrEqual(400);
      expect(info.status, code).toBeLessThan(600);
      expect(info.description.length, code).toBeGreaterThan(10);
    }
  });

  it('are a closed enum on the problem body', () => {
    expect(ProblemSchema.safeParse({ ...problem, code: 'UNAUTHENTICATED' }).success).toBe(true);
    expect(ProblemSchema.safeParse({ ...problem, code: 'NO_SUCH_CODE' }).success).toBe(false);
  });

  it('map to themselves as values', () => {
    expect(ProblemCode.INVALID_PASSWORD).toBe('INVALID_PASSWORD');
    expect(Object.keys(ProblemCode)).toEqual(ProblemCodeSchema.options);
  });
});
