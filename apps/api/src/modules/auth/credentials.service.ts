import type { LoginRequest, SignupRequest } from '@nestegg/contract';
import { type Database, type Member, member } from '@nestegg/db';
import { eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { CounterStore } from '../../lib/counter-store.js';
import { BadRequestError, ConflictError, ForbiddenError, UnauthenticatedError } from '../../lib/errors.js';
import { pgErrorCode, UNIQUE_VIOLATION } from '../../lib/pg-error.js';
import type { AppSettings } from '../settings/app-settings.js';
import { FailureLimiter, LOGIN_FAILURES, PASSWORD_GATE_FAILURES } from './failure-limiter.js';
import { burnPasswordCheck, checkPassword, hashPassword } from './passwords.js';
import { openSession } from './session.issue.js';
import type { SessionStore } from './session.store.js';

export interface CredentialsDeps {
  db: Database;
  sessions: SessionStore;
  settings: AppSettings;
  counters: CounterStore;
  logger: FastifyBaseLogger;
}

export class CredentialsService {
  private readonly loginFailures: FailureLimiter;
  private readonly gateFailures: FailureLimiter;

  constructor(private readonly deps: CredentialsDeps) {
    this.loginFailures = new FailureLimiter(deps.counters, LOGIN_FAILURES, deps.logger);
    this.gateFailures = new FailureLimiter(deps.counters, PASSWORD_GATE_FAILURES, deps.logger);
  }

  /** Creates a LOCAL account. A filled honeypot answers the same as a real sign-up and creates nothing. */
  async signup(input: SignupRequest): Promise<{ email: string; displayName: string }> {
    const answer = { email: input.email, displayName: input.displayName };
    if (input.website && input.website.trim() !== '') {
      this.deps.logger.info('sign-up honeypot filled; nothing created');
      return answer;
    }
    if (!(await this.deps.settings.isSignupEnabled())) {
      throw new ForbiddenError('SIGNUP_DISABLED', 'Sign-up is closed right now.');
    }
    const passwordHash = await hashPassword(input.password);
    try {
      await this.deps.db.insert(member).values({
        email: input.email,
        passwordHash,
        displayName: input.displayName,
        provider: 'LOCAL',
      });
    } catch (error) {
      if (pgErrorCode(error) === UNIQUE_VIOLATION)
        throw new ConflictError('EMAIL_TAKEN', 'An account with this e-mail exists.');
      throw error;
    }
    return answer;
  }

  async login(input: LoginRequest, ip: string) {
    await this.loginFailures.assertAllowed(ip);
    const found = await this.findByEmail(input.email);
    const check = found?.passwordHash ? await checkPassword(input.password, found.passwordHash) : null;
    if (!found || !check?.ok) {
      if (!found?.passwordHash) await burnPasswordCheck(input.password);
      await this.loginFailures.recordFailure(ip);
      throw new UnauthenticatedError('The e-mail or password is wrong.');
    }
    await this.loginFailures.clear(ip);
    if (check.rehash) await this.storeHash(found.id, check.rehash);
    return openSession(this.deps.sessions, found, input.rememberMe ?? false);
  }

  /** The re-authentication gate: 5 failures per 10 minutes per member. */
  async verifyPassword(memberId: number, password: string): Promise<void> {
    await this.gateFailures.assertAllowed(String(memberId));
    const current = await this.passwordHashOf(memberId);
    const check = await checkPassword(password, current);
    if (!check.ok) {
      await this.gateFailures.recordFailure(String(memberId));
      throw new BadRequestError('INVALID_PASSWORD', 'The password is wrong.');
    }
    await this.gateFailures.clear(String(memberId));
    if (check.rehash) await this.storeHash(memberId, check.rehash);
  }

  /** Changes the password and revokes the member's other sessions. Failures count toward the gate's limit. */
  async changePassword(memberId: number, currentPassword: string, newPassword: string, keepTokenHash: string) {
    await this.gateFailures.assertAllowed(String(memberId));
    const current = await this.passwordHashOf(memberId);
    if (!(await checkPassword(currentPassword, current)).ok) {
      await this.gateFailures.recordFailure(String(memberId));
      throw new BadRequestError('INVALID_CURRENT_PASSWORD', 'The current password is wrong.');
    }
    if (currentPassword === newPassword) {
      throw new BadRequestError('PASSWORD_UNCHANGED', 'The new password must differ from the current one.');
    }
    await this.gateFailures.clear(String(memberId));
    await this.storeHash(memberId, await hashPassword(newPassword));
    await this.deps.sessions.destroyAllOf(memberId, { except: keepTokenHash });
  }

  /** Social accounts have no password to check or change. */
  private async passwordHashOf(memberId: number): Promise<string> {
    const [row] = await this.deps.db
      .select({ provider: member.provider, passwordHash: member.passwordHash })
      .from(member)
      .where(eq(member.id, memberId));
    if (!row) throw new UnauthenticatedError();
    if (row.provider !== 'LOCAL' || !row.passwordHash) {
      throw new BadRequestError(
        'SOCIAL_ACCOUNT',
        'This account signs in with an identity provider and has no password.',
      );
    }
    return row.passwordHash;
  }

  private async findByEmail(email: string): Promise<Member | undefined> {
    const [found] = await this.deps.db
      .select()
      .from(member)
      .where(sql`lower(${member.email}) = ${email.toLowerCase()}`);
    return found;
  }

  private async storeHash(memberId: number, passwordHash: string) {
    await this.deps.db.update(member).set({ passwordHash }).where(eq(member.id, memberId));
  }
}
