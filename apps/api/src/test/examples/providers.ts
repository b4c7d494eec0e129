/**
 * The outside services the example scenario meets (decision C44), as small local fakes: both identity
 * providers, the store's push, the App Store, text recognition, exchange rates and stock quotes. `env()` points
 * an api at them; `substitute(kind)` makes a value the document cannot carry (a freshly signed provider token,
 * an App Store transaction signed for the member's appAccountToken).
 */

import type { Clock } from '@nestegg/domain';
import { FakeAppStore, FakeGooglePlay } from '@nestegg/membership/testing';
import type { Recorded } from '@nestegg/openapi/scenario';
import { type FakeServer, startFakeServer } from '@nestegg/testing';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

const ISSUER_ONE = 'https://accounts.idp-one.example';
const ISSUER_TWO = 'https://appleid.idp-two.example';
const CLIENT_ONE = '1234567890-abc123def456.apps.idpone.example';
const CLIENT_TWO = 'com.nestegg.app';
const RECEIPT_TEXT = '이마트 성수점\n2026-05-14 18:42\n신라면 5입 4,480\n서울우유 1L 2,980\n합계 7,460';
const USD_KRW = '1367.25';
const QUOTES: Record<string, string> = { '005930': '77500.0000', '069500': '35210.0000' };

/** The people who sign in with a provider in the scenario. */
const identities: Record<string, { issuer: 'one' | 'two'; claims: JWTPayload }> = {
  seoyeon: {
    issuer: 'one',
    claims: { sub: '109876543210', email: 'seoyeon.lee@example.com', email_verified: true, name: '이서연' },
  },
  neighbor: {
    issuer: 'one',
    claims: { sub: '209876543210', email: 'junho.park@example.com', email_verified: true, name: '박준호' },
  },
  seojun: {
    issuer: 'two',
    claims: { sub: '001234.abcd5678ef90.0412', email: 'seojun.lee@privaterelay.idp-two.example', email_verified: true },
  },
};

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export class ExampleProviders {
  private constructor(
    private readonly server: FakeServer,
    private readonly store: FakeGooglePlay,
    private readonly appStore: FakeAppStore,
    private readonly keys: { one: KeyPair; two: KeyPair },
    private readonly clock: Clock,
  ) {}

  static async start(clock: Clock): Promise<ExampleProviders> {
    const keys = { one: await generateKeyPair('RS256'), two: await generateKeyPair('ES256') };
    const jwks = async (key: KeyPair, kid: string, alg: string) => ({
      keys: [{ ...(await exportJWK(key.publicKey)), kid, alg, use: 'sig' }],
    });
    const [one, two] = [await jwks(keys.one, 'one-1', 'RS256'), await jwks(keys.two, 'two-1', 'ES256')];
    const server = await startFakeServer({
      'GET /one/jwks': () => ({ body: one }),
      'GET /two/jwks': () => ({ body: two }),
      'POST /v1/images:annotate': () => ({
        body: { responses: [{ fullTextAnnotation: { text: RECEIPT_TEXT }, textAnnotations: [] }] },
      }),
      [`GET /v6/fx-key/pair/USD/KRW`]: () => ({
        headers: { 'content-type': 'application/json' },
        body: `{"result":"success","time_last_update_unix":1778716801,"conversion_rate":${USD_KRW}}`,
      }),
      'GET /query': (request) => {
        const symbol = request.query.get('symbol') ?? '';
        const price = QUOTES[symbol];
        return {
          body: {
            'Global Quote': price
              ? { '01. symbol': symbol, '05. price': price, '07. latest trading day': '2026-05-13' }
              : {},
          },
        };
      },
    });
    return new ExampleProviders(server, await FakeGooglePlay.start(), await FakeAppStore.start(), keys, clock);
  }

  env(): Record<string, string> {
    const url = this.server.url;
    return {
      IDPONE_CLIENT_ID: CLIENT_ONE,
      IDPONE_JWKS_URL: `${url}/one/jwks`,
      IDPONE_ISSUERS: ISSUER_ONE,
      IDPTWO_CLIENT_ID: CLIENT_TWO,
      IDPTWO_JWKS_URL: `${url}/two/jwks`,
      IDPTWO_ISSUER: ISSUER_TWO,
      OCR_API_URL: url,
      OCR_API_KEY: 'ocr-key',
      FX_API_URL: `${url}/`,
      FX_API_KEY: 'fx-key',
      QUOTE_API_URL: url,
      QUOTE_API_KEY: 'quote-key',
      ...this.store.pushEnv(),
      ...this.appStore.env(),
    };
  }

  /**
   * A value for `kind`: `idpone:<who>` / `idptwo:<who>` (a fresh ID token), `store-push` (a push's bearer),
   * `appstore-transaction` (a yearly subscription signed for the appAccountToken an earlier step answered),
   * `appstore-notification` (a signed TEST notification).
   */
  async substitute(kind: string, answers: Recorded = {}): Promise<string> {
    if (kind === 'store-push') return `Bearer ${await this.store.pushToken()}`;
    if (kind === 'appstore-transaction') {
      const token = (answers.billingAppStoreAccountToken?.body as { appAccountToken?: string } | undefined)
        ?.appAccountToken;
      if (!token) throw new Error('appstore-transaction needs the billingAppStoreAccountToken step before it');
      const now = this.clock.now();
      // The App Store's id of premium_yearly in the examples' products (billing.fixture.ts).
      const id = this.appStore.subscribe('app.nestegg.premium.yearly', {
        appAccountToken: token,
        purchaseDate: now,
        originalPurchaseDate: now,
        expiresDate: new Date(now.getTime() + 365 * 86_400_000),
      });
      return this.appStore.signedTransaction(id);
    }
    if (kind === 'appstore-notification') return (await this.appStore.notification('TEST', null)).signedPayload;
    const [provider, who] = kind.split(':');
    const identity = who ? identities[who] : undefined;
    if (!identity || `idp${identity.issuer}` !== provider) throw new Error(`no substitute ${kind}`);
    return this.idToken(identity.issuer, identity.claims);
  }

  /** Issued "now" by the api's clock (freshness is judged by it); valid for ten real minutes. */
  private idToken(issuer: 'one' | 'two', claims: JWTPayload): Promise<string> {
    const issuedAt = Math.floor(this.clock.now().getTime() / 1000) - 5;
    const [key, kid, alg, iss, aud] =
      issuer === 'one'
        ? [this.keys.one, 'one-1', 'RS256', ISSUER_ONE, CLIENT_ONE]
        : [this.keys.two, 'two-1', 'ES256', ISSUER_TWO, CLIENT_TWO];
    return new SignJWT(claims)
      .setProtectedHeader({ alg, kid, typ: 'JWT' })
      .setIssuer(iss)
      .setAudience(aud)
      .setIssuedAt(issuedAt)
      .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
      .sign(key.privateKey);
  }

  async close(): Promise<void> {
    await Promise.all([this.server.close(), this.store.close(), this.appStore.close()]);
  }
}
