import type { Clock } from '@nestegg/domain';
import { importPKCS8, SignJWT } from 'jose';
import { StoreUnavailableError } from '../errors.js';
import { storeRequest } from './http.js';
import { AccessTokenResponseSchema } from './types.js';

export const ANDROID_PUBLISHER_SCOPE = 'https://www.googleapis.com/auth/androidpublisher';

/** Renew this long before the token's stated expiry (clock skew, requests in flight). */
const EXPIRY_MARGIN_MS = 60_000;
const ASSERTION_LIFETIME_SECONDS = 3600;

export interface ServiceAccountConfig {
  email: string;
  privateKeyPem: string;
  tokenUrl: string;
  timeoutMs: number;
}

/**
 * OAuth 2.0 for a service account (RFC 7523 JWT bearer grant, as Google's token endpoint takes it):
 * a JWT signed RS256 with the account's private key is exchanged for an access token, which is cached
 * until shortly before it expires. Concurrent callers share one exchange.
 */
export class AccessTokenSource {
  private cached: { token: string; expiresAtMs: number } | null = null;
  private exchanging: Promise<string> | null = null;
  private key: ReturnType<typeof importPKCS8> | null = null;

  constructor(
    private readonly account: ServiceAccountConfig,
    private readonly clock: Clock,
  ) {}

  async get(): Promise<string> {
    const now = this.clock.now().getTime();
    if (this.cached && this.cached.expiresAtMs - EXPIRY_MARGIN_MS > now) return this.cached.token;
    this.exchanging ??= this.exchange().finally(() => {
      this.exchanging = null;
    });
    return this.exchanging;
  }

  /** Forgets the cached token (the API refused it: revoked or rotated early). */
  invalidate(): void {
    this.cached = null;
  }

  private async exchange(): Promise<string> {
    const issuedAt = Math.floor(this.clock.now().getTime() / 1000);
    const assertion = await new SignJWT({ scope: ANDROID_PUBLISHER_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(this.account.email)
      .setAudience(this.account.tokenUrl)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ASSERTION_LIFETIME_SECONDS)
      .sign(await this.signingKey());
    const response = await storeRequest(
      this.account.tokenUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      },
      this.account.timeoutMs,
    );
    const parsed = AccessTokenResponseSchema.safeParse(response.body);
    if (response.status !== 200 || !parsed.success) {
      throw new StoreUnavailableError(`the store's token endpoint answered ${response.status}`);
    }
    this.cached = {
      token: parsed.data.access_token,
      expiresAtMs: issuedAt * 1000 + parsed.data.expires_in * 1000,
    };
    return parsed.data.access_token;
  }

  private signingKey() {
    this.key ??= importPKCS8(this.account.privateKeyPem, 'RS256');
    return this.key;
  }
}
