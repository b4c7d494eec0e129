import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { StorePushConfig } from '../config.js';
import { MembershipError, StoreUnavailableError } from '../errors.js';

/** The push carries no acceptable token: missing, forged, expired, wrong audience, issuer or sender. */
export class PushTokenRejectedError extends MembershipError {
  constructor(reason: string) {
    super(`The push token is not acceptable: ${reason}.`);
  }
}

const CLOCK_TOLERANCE_SECONDS = 30;

/** jose failures that mean "this token is not acceptable", as opposed to "the key set is unreachable". */
const REJECTIONS = [
  errors.JWSInvalid,
  errors.JWTInvalid,
  errors.JWTExpired,
  errors.JWTClaimValidationFailed,
  errors.JWSSignatureVerificationFailed,
  errors.JOSEAlgNotAllowed,
  errors.JOSENotSupported,
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
];

/**
 * Authenticates the store's pushes: Pub/Sub push sends `Authorization: Bearer <OIDC token>` signed by
 * Google, whose issuer, audience (set on the push subscription) and `email` (the push service account,
 * verified) must match the configuration. Keys come from the configured key set URL, cached by jose.
 */
export class PushAuthenticator {
  private readonly keys;

  constructor(private readonly config: StorePushConfig) {
    this.keys = createRemoteJWKSet(new URL(config.jwksUrl), {
      timeoutDuration: config.timeoutMs,
      cooldownDuration: 30_000,
      cacheMaxAge: 600_000,
    });
  }

  /** Resolves when the header holds an acceptable token; `PushTokenRejectedError` or `StoreUnavailableError` otherwise. */
  async verify(authorization: string | undefined): Promise<void> {
    const token = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(authorization ?? '')?.[1];
    if (!token) throw new PushTokenRejectedError('no bearer token');
    const payload = await this.verifySignature(token);
    if (payload.email !== this.config.serviceAccountEmail) throw new PushTokenRejectedError('another sender');
    if (payload.email_verified !== true) throw new PushTokenRejectedError('sender e-mail not verified');
  }

  private async verifySignature(token: string) {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.config.issuers,
        audience: this.config.audience,
        algorithms: ['RS256'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'iat'],
      });
      return payload;
    } catch (error) {
      if (REJECTIONS.some((kind) => error instanceof kind)) {
        throw new PushTokenRejectedError((error as Error).message);
      }
      throw new StoreUnavailableError(`the push key set cannot be fetched (${(error as Error).name})`);
    }
  }
}
