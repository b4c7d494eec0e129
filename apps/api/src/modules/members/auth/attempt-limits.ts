import type { Clock } from '@nestegg/domain';
import type { FastifyBaseLogger } from 'fastify';
import type { AttemptStore, BackoffPolicy, Reservation } from '../../../lib/attempt-store.js';
import { RateLimitedError } from '../../../lib/errors.js';

const MINUTE = 60_000;

/** The spec's limits: 10 login failures per IP, 5 password-gate failures per member, per 10 minutes. */
export const LOGIN_FAILURES_PER_IP = { max: 10, windowMs: 10 * MINUTE };
export const GATE_FAILURES_PER_MEMBER = { max: 5, windowMs: 10 * MINUTE };
/** Rejected identity-provider tokens per IP, shaped like the login limit. */
export const PROVIDER_FAILURES_PER_IP = { max: 10, windowMs: 10 * MINUTE };

/**
 * Per account, across addresses (decision M19): 5 failures free, then a lock of 30 s doubling with each
 * further failure up to 15 minutes; the count is forgotten 24 hours after the last failure. Addresses
 * that logged into the account within 30 days are exempt, so an attacker cannot keep the owner out.
 */
export const ACCOUNT_BACKOFF: BackoffPolicy = {
  freeFailures: 5,
  baseLockMs: 30_000,
  maxLockMs: 15 * MINUTE,
  forgetAfterMs: 24 * 60 * MINUTE,
  knownForMs: 30 * 24 * 60 * MINUTE,
};

export interface AttemptLimitsDeps {
  attempts: AttemptStore;
  logger: FastifyBaseLogger;
  clock: Clock;
}

/**
 * Every attempt is reserved before its slow check and counts as a failure until it succeeds, so parallel
 * attempts cannot overrun a limit. When the counter store fails, the attempt passes (the spec's rule:
 * an outage must not lock everyone out).
 */
export class AttemptLimits {
  constructor(private readonly deps: AttemptLimitsDeps) {}

  /** Login: per IP (failures attributed to the account tried) and per account (backoff). */
  async beginLogin(ip: string, email: string): Promise<void> {
    const byIp = await this.safely(() =>
      this.deps.attempts.reserve(`login-ip:${ip}`, email, LOGIN_FAILURES_PER_IP.max, LOGIN_FAILURES_PER_IP.windowMs),
    );
    refuseUnlessAllowed(byIp);
    const byAccount = await this.safely(() =>
      this.deps.attempts.reserveWithBackoff(
        `login-account:${email}`,
        ip,
        ACCOUNT_BACKOFF,
        this.deps.clock.now().getTime(),
      ),
    );
    if (!byAccount.allowed) {
      await this.safely(() => this.deps.attempts.release(`login-ip:${ip}`, email));
      refuseUnlessAllowed(byAccount);
    }
  }

  /** A success clears this account's failures only (decision M4): another account's stay counted. */
  async loginSucceeded(ip: string, email: string): Promise<void> {
    await this.safely(() => this.deps.attempts.clear(`login-ip:${ip}`, email));
    await this.safely(() => this.deps.attempts.succeedWithBackoff(`login-account:${email}`, ip, ACCOUNT_BACKOFF));
  }

  async beginGate(memberId: number): Promise<void> {
    refuseUnlessAllowed(
      await this.safely(() =>
        this.deps.attempts.reserve(
          `gate:${memberId}`,
          'gate',
          GATE_FAILURES_PER_MEMBER.max,
          GATE_FAILURES_PER_MEMBER.windowMs,
        ),
      ),
    );
  }

  async gateSucceeded(memberId: number): Promise<void> {
    await this.safely(() => this.deps.attempts.clear(`gate:${memberId}`, 'gate'));
  }

  async beginProviderSignIn(ip: string): Promise<void> {
    refuseUnlessAllowed(
      await this.safely(() =>
        this.deps.attempts.reserve(
          `provider-ip:${ip}`,
          'token',
          PROVIDER_FAILURES_PER_IP.max,
          PROVIDER_FAILURES_PER_IP.windowMs,
        ),
      ),
    );
  }

  async providerSignInSucceeded(ip: string): Promise<void> {
    await this.safely(() => this.deps.attempts.clear(`provider-ip:${ip}`, 'token'));
  }

  /** The provider could not be asked (its keys were unreachable): not the caller's failure. */
  async providerSignInInconclusive(ip: string): Promise<void> {
    await this.safely(() => this.deps.attempts.release(`provider-ip:${ip}`, 'token'));
  }

  /** The store's answer, or a pass when the store fails (logged). */
  private async safely(operation: () => Promise<Reservation | undefined>): Promise<Reservation>;
  private async safely(operation: () => Promise<unknown>): Promise<unknown>;
  private async safely(operation: () => Promise<unknown>): Promise<unknown> {
    try {
      return (await operation()) ?? PASS;
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'attempt counters unavailable; letting the attempt pass');
      return PASS;
    }
  }
}

const PASS: Reservation = { allowed: true, retryAfterMs: 0 };

function refuseUnlessAllowed(reservation: Reservation): void {
  if (!reservation.allowed) throw new RateLimitedError(reservation.retryAfterMs / 1000);
}
