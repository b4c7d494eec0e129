import { type LoginRequest, SET_PASSWORD_PATH, type SignupRequest } from '@nestegg/contract';
import { type Database, type Member, member } from '@nestegg/db';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { BadRequestError, ConflictError, ForbiddenError, UnauthenticatedError } from '../../../lib/errors.js';
import { pgErrorCode, UNIQUE_VIOLATION } from '../../../lib/pg-error.js';
import type { AppSettings } from '../../admin/settings/index.js';
import type { AttemptLimits } from './attempt-limits.js';
import { assertStrongPassword } from './password-strength.js';
import type { PasswordHasher } from './passwords.js';
import { openSession } from './session.issue.js';
import type { SessionStore } from './session.store.js';

export interface CredentialsDeps {
  db: Database;
  sessions: SessionStore;
  settings: AppSettings;
  limits: AttemptLimits;
  hasher: PasswordHasher;
  logger: FastifyBaseLogger;
}

/** Where a login comes from: the client address (for limits) and its User-Agent (for the session list). */
export interface LoginOrigin {
  ip: string;
  userAgent?: string | undefined;
}

const WRONG_CREDENTIALS = 'The e-mail or password is wrong.';

/** The provider identity a set-password request proved the caller to be (see ProviderSignInService). */
export interface ProvenIdentity {
  provider: 'IDPONE' | 'IDPTWO';
  subject: string;
}

const passwordAlreadySet = () =>
  new ConflictError(
    'PASSWORD_ALREADY_SET',
    'This account has a password. To change it, use PUT /api/auth/password with the current one.',
  );

export class CredentialsService {
  constructor(private readonly deps: CredentialsDeps) {}

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
    assertStrongPassword(input.password, [input.email, input.displayName]);
    const passwordHash = await this.deps.hasher.hash(input.password);
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

  /**
   * The attempt is counted before the slow verification, and the session is opened only if the member
   * is, at that moment, still active with the very password hash that was verified.
   */
  async login(input: LoginRequest, origin: LoginOrigin) {
    await this.deps.limits.beginLogin(origin.ip, input.email);
    const found = await this.findByEmail(input.email);
    const check = found?.passwordHash ? await this.deps.hasher.check(input.password, found.passwordHash) : null;
    if (!found || !check?.ok) {
      if (!found?.passwordHash) await this.deps.hasher.burn(input.password);
      throw new UnauthenticatedError(WRONG_CREDENTIALS);
    }
    const session = await openSession(this.deps.sessions, found.id, {
      rememberMe: input.rememberMe ?? false,
      userAgent: origin.userAgent,
      verifiedPasswordHash: found.passwordHash,
    });
    await this.deps.limits.loginSucceeded(origin.ip, input.email);
    if (check.rehash) await this.replaceHash(found.id, found.passwordHash!, check.rehash);
    return session;
  }

  /**
   * The re-authentication gate: 5 failures per 10 minutes per member. A success marks the session as
   * re-authenticated, which sensitive operations (withdrawal) require.
   */
  async verifyPassword(memberId: number, password: string, tokenHash: string): Promise<Date> {
    await this.deps.limits.beginGate(memberId);
    const current = await this.passwordHashOf(memberId);
    const check = await this.deps.hasher.check(password, current);
    if (!check.ok) throw new BadRequestError('INVALID_PASSWORD', 'The password is wrong.');
    await this.deps.limits.gateSucceeded(memberId);
    const reauthenticatedAt = await this.deps.sessions.markReauthenticated(tokenHash);
    if (check.rehash) await this.replaceHash(memberId, current, check.rehash);
    return reauthenticatedAt;
  }

  /**
   * Changes the password and revokes the member's other sessions. Failures count toward the gate's
   * limit. The new hash replaces exactly the hash that was verified (compare-and-set), so of parallel
   * changes only one takes effect and the others are told so.
   */
  async changePassword(memberId: number, currentPassword: string, newPassword: string, keepTokenHash: string) {
    await this.deps.limits.beginGate(memberId);
    const current = await this.passwordHashOf(memberId);
    if (!(await this.deps.hasher.check(currentPassword, current)).ok) {
      throw new BadRequestError('INVALID_CURRENT_PASSWORD', 'The current password is wrong.');
    }
    await this.deps.limits.gateSucceeded(memberId);
    if (currentPassword === newPassword) {
      throw new BadRequestError('PASSWORD_UNCHANGED', 'The new password must differ from the current one.');
    }
    assertStrongPassword(newPassword, await this.identityWords(memberId));
    const newHash = await this.deps.hasher.hash(newPassword);
    const revoked = await this.deps.db.transaction(async (tx) => {
      const [changed] = await tx
        .update(member)
        .set({ passwordHash: newHash })
        .where(and(eq(member.id, memberId), eq(member.passwordHash, current)))
        .returning({ id: member.id });
      if (!changed) {
        throw new ConflictError(
          'PASSWORD_CHANGED_CONCURRENTLY',
          'The password was changed by another request. Log in again.',
        );
      }
      return this.deps.sessions.destroyAllOf(memberId, { except: keepTokenHash, tx });
    });
    await this.deps.sessions.forgetCached(revoked);
  }

  /**
   * Cheap checks before a set-password request spends a provider verification: the account must be LOCAL
   * (provider accounts have no password, spec) and have no password (else it is changed, not set).
   */
  async assertCanSetPassword(memberId: number): Promise<void> {
    const [row] = await this.deps.db
      .select({ provider: member.provider, passwordHash: member.passwordHash })
      .from(member)
      .where(eq(member.id, memberId));
    if (!row) throw new UnauthenticatedError();
    if (row.provider !== 'LOCAL') throw socialAccount();
    if (row.passwordHash) throw passwordAlreadySet();
  }

  /**
   * Sets the password of a LOCAL account that has none (a provider sign-in turned it off, M22), once the caller
   * proved with a fresh provider token to be the identity linked to it (M30). Checked and hashed like sign-up.
   * One conditional update (no password yet, still that identity) decides: of parallel requests exactly one
   * sets its password and the others answer 409 PASSWORD_ALREADY_SET. Other sessions stay (no secret rotated).
   */
  async setPassword(memberId: number, proven: ProvenIdentity, newPassword: string): Promise<void> {
    assertStrongPassword(newPassword, await this.identityWords(memberId));
    const passwordHash = await this.deps.hasher.hash(newPassword);
    const subjectColumn = proven.provider === 'IDPONE' ? member.idponeId : member.idptwoId;
    const [set] = await this.deps.db
      .update(member)
      .set({ passwordHash })
      .where(
        and(
          eq(member.id, memberId),
          eq(member.provider, 'LOCAL'),
          isNull(member.passwordHash),
          eq(subjectColumn, proven.subject),
        ),
      )
      .returning({ id: member.id });
    if (set) return;
    // Nothing changed: a concurrent request set a password first (409), or the account changed under us.
    await this.assertCanSetPassword(memberId);
    throw new ForbiddenError('PROVIDER_MISMATCH', 'This token belongs to another identity than your account.');
  }

  /** Provider accounts, and LOCAL accounts whose password a provider sign-in removed, have none to check. */
  private async passwordHashOf(memberId: number): Promise<string> {
    const [row] = await this.deps.db
      .select({ provider: member.provider, passwordHash: member.passwordHash })
      .from(member)
      .where(eq(member.id, memberId));
    if (!row) throw new UnauthenticatedError();
    if (row.provider !== 'LOCAL') throw socialAccount();
    if (!row.passwordHash) {
      throw new BadRequestError(
        'SOCIAL_ACCOUNT',
        'Password login is turned off for this account (a provider sign-in proved the e-mail). ' +
          `Set a new password with POST ${SET_PASSWORD_PATH}, using a fresh token of your provider.`,
      );
    }
    return row.passwordHash;
  }

  private async identityWords(memberId: number): Promise<string[]> {
    const [row] = await this.deps.db
      .select({ email: member.email, displayName: member.displayName })
      .from(member)
      .where(eq(member.id, memberId));
    return [row?.email ?? '', row?.displayName ?? ''];
  }

  private async findByEmail(email: string): Promise<Member | undefined> {
    const [found] = await this.deps.db
      .select()
      .from(member)
      .where(sql`lower(${member.email}) = ${email.toLowerCase()}`);
    return found;
  }

  /** A stronger hash of the same password, stored only if the password did not change meanwhile. */
  private async replaceHash(memberId: number, verified: string, passwordHash: string) {
    await this.deps.db
      .update(member)
      .set({ passwordHash })
      .where(and(eq(member.id, memberId), eq(member.passwordHash, verified)));
  }
}

const socialAccount = () =>
  new BadRequestError('SOCIAL_ACCOUNT', 'This account signs in with an identity provider and has no password.');
