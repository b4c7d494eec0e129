import { type ProblemCode, problemCodeStatus } from '@nestegg/contract';
import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';

const unavailableCodes = (Object.keys(problemCodeStatus) as ProblemCode[]).filter(
  (code) => problemCodeStatus[code] === 503,
);
/** 503s that retrying soon does not cure: a missing configuration, a replica that is not ready. */
const lasting = (code: ProblemCode) => code.endsWith('_NOT_CONFIGURED') || code === 'NOT_READY';

describe('Retry-After of a 503 (decision C51)', () => {
  it.for(unavailableCodes.filter((code) => !lasting(code)))(
    '%s says how long to wait when its thrower does not',
    (code) => {
      expect(new AppError(code, 'away').retryAfterSeconds).toBeGreaterThanOrEqual(1);
    },
  );

  it.for(unavailableCodes.filter(lasting))('%s says nothing: retrying soon does not help', (code) => {
    expect(new AppError(code, 'not set up').retryAfterSeconds).toBeUndefined();
  });

  it("keeps the thrower's own wait, in whole seconds", () => {
    expect(new AppError('STORE_UNAVAILABLE', 'away', { retryAfterSeconds: 0.2 }).retryAfterSeconds).toBe(1);
    expect(new AppError('OVERLOADED', 'busy', { retryAfterSeconds: 12 }).retryAfterSeconds).toBe(12);
  });
});
