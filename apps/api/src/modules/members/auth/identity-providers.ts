/**
 * Sign-in with identity provider one and two (spec, Authentication 3 and 4): ID-token verification
 * against the provider's key set, then member lookup, linking or creation.
 */
import { DISPLAY_NAME_MAX } from '@nestegg/contract';
import { type Database, type Member, member, type Transaction } from '@nestegg/db';
import { asc, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import { type Env, isProviderConfigured } from '../../../env.js';
import { AppError, ForbiddenError, ServiceUnavailableError } from '../../../lib/errors.js';
import { pgErrorCode, UNIQUE_VIOLATION } from '../../../lib/pg-error.js';
import type { SessionStore } from './session.store.js';

export type IdentityProvider = 'IDPONE' | 'IDPTWO';

const providerNames: Record<IdentityProvider, string> = {
  IDPONE: 'identity provider one',
  IDPTWO: 'identity provider two',
};

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/** Every rejection of the token itself: signature, audience, issuer, expiry, shape, missing subject. */
export class InvalidIdTokenError extends AppError {
  constructor() {
    super('INVALID_ID_TOKEN', 'The sign-in token is not valid. Sign in with the provider again.');
  }
}

export class ProviderNotConfiguredError extends ServiceUnavailableError {
  constructor(provider: IdentityProvider) {
    super('PROVIDER_NOT_CONFIGURED', `Sign-in with ${providerNames[provider]} is not configured.`);
  }
}

/** The provider's key set could not be fetched (network, timeout, non-200, not a key set). */
export class ProviderUnavailableError extends ServiceUnavailableError {
  constructor(provider: IdentityProvider) {
    super(
      'PROVIDER_UNAVAILABLE',
      `The keys of ${providerNames[provider]} cannot be fetched right now. Try again later.`,
    );
  }
}

/** An account already holds the token's e-mail, but the provider does not vouch for that e-mail. */
export class EmailNotVerifiedError extends ForbiddenError {
  constructor() {
    super(
      'EMAIL_NOT_VERIFIED',
      'An account with this e-mail exists, but the provider has not verified the e-mail. Verify it with the provider first.',
    );
  }
}

/** The account holding the e-mail is already linked to another identity of the same provider. */
export class AccountLinkedElsewhereError extends ForbiddenError {
  constructor() {
    super(
      'ACCOUNT_LINKED_ELSEWHERE',
      'The account with this e-mail is already linked to another identity of this provider.',
    );
  }
}

// ---------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------

export interface ProviderConfig {
  clientId: string;
  jwksUrl: string;
  issuers: string[];
}

/** The provider's configuration, or null when it is not configured (the environment is all or nothing). */
export function providerConfig(env: Env, provider: IdentityProvider): ProviderConfig | null {
  if (!isProviderConfigured(env, provider)) return null;
  return provider === 'IDPONE'
    ? { clientId: env.IDPONE_CLIENT_ID!.trim(), jwksUrl: env.IDPONE_JWKS_URL!, issuers: env.IDPONE_ISSUERS }
    : { clientId: env.IDPTWO_CLIENT_ID!.trim(), jwksUrl: env.IDPTWO_JWKS_URL!, issuers: [env.IDPTWO_ISSUER!.trim()] };
}

// ---------------------------------------------------------------------------
// Token verification
// ---------------------------------------------------------------------------

export const ALLOWED_ALGORITHMS = ['RS256', 'ES256'];
export const CLOCK_TOLERANCE_SECONDS = 30;
const SUBJECT_MAX = 255;
const PICTURE_MAX = 2048;

/** jose error codes that mean "this token is not acceptable" (as opposed to "the key set is unreachable"). */
const TOKEN_REJECTION_CODES = new Set([
  'ERR_JWS_INVALID',
  'ERR_JWT_INVALID',
  'ERR_JWT_EXPIRED',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
]);

/** What a verified token says about the person. `email` is trimmed and lower-cased (C3), null when absent. */
export interface VerifiedIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  picture: string | null;
  /** When the provider issued the token (`iat`), or null when it did not say. */
  issuedAt: Date | null;
  /** When the person last actually signed in at the provider (`auth_time`), or null when it did not say. */
  authTime: Date | null;
}

/**
 * Verifies one provider's tokens. The remote key set is created once per verifier (one per app): jose caches
 * the keys (10 minutes) and refetches on an unknown `kid` at most every 30 seconds.
 */
export class IdTokenVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet> | null;

  constructor(
    readonly provider: IdentityProvider,
    readonly config: ProviderConfig | null,
    private readonly log?: FastifyBaseLogger,
  ) {
    this.jwks = config ? createRemoteJWKSet(new URL(config.jwksUrl)) : null;
  }

  /** Throws ProviderNotConfigured (503) before anything else when the provider is not set up. */
  assertConfigured(): ProviderConfig {
    if (!this.config || !this.jwks) throw new ProviderNotConfiguredError(this.provider);
    return this.config;
  }

  async verify(token: string): Promise<VerifiedIdentity> {
    const config = this.assertConfigured();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks!, {
        issuer: config.issuers,
        audience: config.clientId,
        algorithms: ALLOWED_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && TOKEN_REJECTION_CODES.has(code)) {
        this.log?.info({ provider: this.provider, reason: code }, 'identity provider token rejected');
        throw new InvalidIdTokenError();
      }
      this.log?.warn({ provider: this.provider, err: error }, 'identity provider key set unavailable');
      throw new ProviderUnavailableError(this.provider);
    }
    return identityFromClaims(payload);
  }
}

/** `email_verified` arrives as a boolean (provider one) or as the string "true"/"false" (provider two). */
function isTrue(value: unknown): boolean {
  return value === true || (typeof value === 'string' && value.trim().toLowerCase() === 'true');
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function normalizedEmail(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const email = value.trim().toLowerCase();
  return email.length <= 254 && EMAIL_PATTERN.test(email) ? email : null;
}

/** Only absolute http(s) URLs are kept: the value ends up in `src` attributes of other members' screens. */
function safePictureUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > PICTURE_MAX) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? value : null;
  } catch {
    return null;
  }
}

export function identityFromClaims(payload: JWTPayload): VerifiedIdentity {
  const subject = payload.sub;
  if (typeof subject !== 'string' || subject.length === 0 || subject.length > SUBJECT_MAX) {
    throw new InvalidIdTokenError();
  }
  const email = normalizedEmail(payload.email);
  const name = typeof payload.name === 'string' ? payload.name : null;
  return {
    subject,
    email,
    emailVerified: email !== null && isTrue(payload.email_verified),
    name,
    picture: safePictureUrl(payload.picture),
    issuedAt: typeof payload.iat === 'number' ? new Date(payload.iat * 1000) : null,
    authTime: typeof payload.auth_time === 'number' ? new Date(payload.auth_time * 1000) : null,
  };
}

/**
 * Whether a verified token shows a sign-in at the provider within `windowMs` of `now` (decision M30): `iat`
 * is required and must lie in the window (up to the clock tolerance ahead); `auth_time`, when the provider
 * sends it, must too, so a token refreshed silently from an old sign-in is not fresh.
 */
export function isFreshIdentity(identity: VerifiedIdentity, now: Date, windowMs: number): boolean {
  const inWindow = (at: Date) => {
    const age = now.getTime() - at.getTime();
    return age <= windowMs && age >= -CLOCK_TOLERANCE_SECONDS * 1000;
  };
  if (!identity.issuedAt || !inWindow(identity.issuedAt)) return false;
  return identity.authTime === null || inWindow(identity.authTime);
}

// ---------------------------------------------------------------------------
// Member lookup, linking, creation
// ---------------------------------------------------------------------------

/**
 * Trims, collapses whitespace and cuts to DISPLAY_NAME_MAX UTF-16 units without splitting a character;
 * falls back to the e-mail's local part, then "Member".
 */
export function displayNameFor(candidate: string | null | undefined, email: string | null): string {
  for (const raw of [candidate, email?.split('@')[0]]) {
    const cleaned = (raw ?? '').replace(/\s+/g, ' ').trim();
    if (!cleaned) continue;
    let cut = '';
    for (const char of cleaned) {
      if (cut.length + char.length > DISPLAY_NAME_MAX) break;
      cut += char;
    }
    const trimmed = cut.trim();
    if (trimmed) return trimmed;
  }
  return 'Member';
}

export interface SignInProfile {
  /** Provider two: the name the app forwards on the first sign-in. Provider one: unused (the claim is used). */
  displayName?: string;
}

/** The member a sign-in resolved to, and the sessions a takeover-closing link ended (to drop after commit). */
export interface ResolvedMember {
  member: Member;
  revokedTokenHashes: string[];
  /** This sign-in linked into an unproven LOCAL account and removed its password (M22): the answer says so (M31). */
  passwordLoginDisabled: boolean;
}

/**
 * Finds the member a verified identity belongs to (by subject id; else by the same verified e-mail, LOCAL
 * accounts first, which is then linked, keeping its provider value; else a new member), in one transaction.
 * Two first sign-ins racing to create the same member: the loser's unique violation retries the lookup once,
 * which then finds the winner's row.
 */
export async function findOrCreateMember(
  db: Database,
  sessions: SessionStore,
  provider: IdentityProvider,
  identity: VerifiedIdentity,
  profile: SignInProfile = {},
): Promise<ResolvedMember> {
  const attempt = () => db.transaction((tx) => resolveMember(tx, sessions, provider, identity, profile));
  try {
    return await attempt();
  } catch (error) {
    if (pgErrorCode(error) !== UNIQUE_VIOLATION) throw error;
    return attempt();
  }
}

async function resolveMember(
  tx: Transaction,
  sessions: SessionStore,
  provider: IdentityProvider,
  identity: VerifiedIdentity,
  profile: SignInProfile,
): Promise<ResolvedMember> {
  const resolved = (found: Member): ResolvedMember => ({
    member: found,
    revokedTokenHashes: [],
    passwordLoginDisabled: false,
  });
  const subjectColumn = provider === 'IDPONE' ? member.idponeId : member.idptwoId;
  // Only provider one has a picture claim; provider two sends none.
  const picture = provider === 'IDPONE' ? identity.picture : null;

  const [bySubject] = await tx.select().from(member).where(eq(subjectColumn, identity.subject)).limit(1);
  if (bySubject) return resolved(await syncPicture(tx, bySubject, picture));

  if (identity.email) {
    // E-mails are unique case-insensitively, so at most one row matches; the order still makes
    // "LOCAL accounts first" hold should that ever change. Locked: the link is decided on this row.
    const [byEmail] = await tx
      .select()
      .from(member)
      .where(sql`lower(${member.email}) = ${identity.email}`)
      .orderBy(sql`(${member.provider} = 'LOCAL') desc`, asc(member.id))
      .limit(1)
      .for('update');
    if (byEmail) {
      const linkedSubject = provider === 'IDPONE' ? byEmail.idponeId : byEmail.idptwoId;
      // A concurrent first sign-in of the same subject committed between the two reads (each statement
      // sees the latest commits): this is the member the subject lookup would now find.
      if (linkedSubject === identity.subject) return resolved(await syncPicture(tx, byEmail, picture));
      if (!identity.emailVerified) throw new EmailNotVerifiedError();
      if (linkedSubject !== null) throw new AccountLinkedElsewhereError();
      return linkMember(tx, sessions, provider, byEmail, identity.subject, picture);
    }
  }

  // An unverified e-mail is not stored: it would claim the address (unique) for someone who has not
  // shown they own it, and a later verified sign-in or sign-up of the real owner would collide with it.
  const email = identity.emailVerified ? identity.email : null;
  const [created] = await tx
    .insert(member)
    .values({
      email,
      emailVerified: email !== null,
      displayName: displayNameFor(provider === 'IDPONE' ? identity.name : profile.displayName, identity.email),
      provider,
      ...(provider === 'IDPONE'
        ? { idponeId: identity.subject, idponePicture: picture }
        : { idptwoId: identity.subject }),
    })
    .returning();
  return resolved(created!);
}

/**
 * Links the provider identity into the account holding its verified e-mail. A LOCAL account whose
 * e-mail was never proven gets its proof from the provider now (decision M22): the password set by
 * whoever registered the address stops working and the account's other sessions end, so pre-registering
 * someone's address cannot capture their later provider sign-in. The owner can set a new password with a
 * fresh token of this identity (`POST /api/auth/password`, M30); the e-mail now being proven, a later link
 * never removes that one.
 */
async function linkMember(
  tx: Transaction,
  sessions: SessionStore,
  provider: IdentityProvider,
  found: Member,
  subject: string,
  picture: string | null,
): Promise<ResolvedMember> {
  const unproven = found.provider === 'LOCAL' && !found.emailVerified;
  const [linked] = await tx
    .update(member)
    .set({
      ...(provider === 'IDPONE'
        ? { idponeId: subject, ...(picture ? { idponePicture: picture } : {}) }
        : { idptwoId: subject }),
      ...(unproven ? { emailVerified: true, passwordHash: null } : {}),
    })
    .where(eq(member.id, found.id))
    .returning();
  const revokedTokenHashes = unproven ? await sessions.destroyAllOf(found.id, { tx }) : [];
  // The row is locked (FOR UPDATE) since it was read, so the hash read then is the one just removed.
  return { member: linked!, revokedTokenHashes, passwordLoginDisabled: unproven && found.passwordHash !== null };
}

/** Provider one's picture claim replaces the stored one when it differs; an absent claim keeps it. */
async function syncPicture(tx: Transaction, found: Member, picture: string | null): Promise<Member> {
  if (!picture || picture === found.idponePicture) return found;
  const [updated] = await tx.update(member).set({ idponePicture: picture }).where(eq(member.id, found.id)).returning();
  return updated ?? found;
}
