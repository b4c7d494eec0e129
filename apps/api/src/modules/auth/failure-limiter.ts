import type { FastifyBaseLogger } from 'fastify';
import type { CounterStore } from '../../lib/counter-store.js';
import { RateLimitedError } from '../../lib/errors.js';

export interface FailureLimit {
  /** Counter namespace, e.g. `login-failures`. */
  name: string;
  maxFailures: number;
  windowSeconds: number;
}

export const LOGIN_FAILURES: FailureLimit = { name: 'login-failures', maxFailures: 10, windowSeconds: 600 };
export const PASSWORD_GATE_FAILURES: FailureLimit = {
  name: 'password-gate-failures',
  maxFailures: 5,
  windowSeconds: 600,
};
/** Rejected identity-provider tokens per IP, shaped like the login limit. */
export const PROVIDER_SIGNIN_FAILURES: FailureLimit = {
  name: 'provider-signin-failures',
  maxFailures: 10,
  windowSeconds: 600,
};

/**
 * Counts failed attempts (not all attempts) per subject within a fixed window; a success clears the
 * count. When the counter store fails, the attempt passes: a Redis outage must not lock everyone out.
 */
export class FailureLimiter {
  constructor(
    private readonly counters: CounterStore,
    private readonly limit: FailureLimit,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /** Throws 429 when the subject already used up its failures in this window. */
  async assertAllowed(subject: string): Promise<void> {
    const state = await this.safely(() => this.counters.peek(this.key(subject)));
    if (state && state.count >= this.limit.maxFailures) throw new RateLimitedError(state.resetInSeconds);
  }

  async recordFailure(subject: string): Promise<void> {
    await this.safely(() => this.counters.hit(this.key(subject), this.limit.windowSeconds));
  }

  async clear(subject: string): Promise<void> {
    await this.safely(() => this.counters.reset(this.key(subject)));
  }

  private key(subject: string) {
    return `${this.limit.name}:${subject}`;
  }

  private async safely<T>(operation: () => Promise<T>): Promise<T | null> {
    try {
      return await operation();
    } catch (error) {
      this.logger.warn({ err: error, limit: this.limit.name }, 'failure counter unavailable; letting the attempt pass');
      return null;
    }
  }
}
