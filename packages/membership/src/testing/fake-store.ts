/**
 * A local stand-in for Google Play in tests: the OAuth token endpoint (checks the service account's signed
 * assertion), the Developer API (subscriptionsv2 get and cancel, subscriptions acknowledge, voided purchases
 * list; every call needs a token it issued), the key set of the push service, and helpers that sign push
 * tokens and build RTDN push bodies. Tests drive the subscriptions' states directly.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportPKCS8, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import type { SubscriptionState } from '../google-play/types.js';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export interface FakeSubscription {
  productId: string;
  state: SubscriptionState;
  expiryTime: Date;
  autoRenew: boolean;
  acknowledged: boolean;
  linkedPurchaseToken?: string | undefined;
  orderId: string;
}

export interface FakeVoided {
  purchaseToken: string;
  orderId: string;
  voidedTime: Date;
}

export interface FakeCalls {
  tokenExchanges: number;
  /** The most `subscriptionsv2.get` calls for one token that were in flight at the same time. */
  maxConcurrentGetsPerToken: number;
  gets: string[];
  acknowledgements: string[];
  cancellations: string[];
  voidedLists: number;
}

const SERVICE_ACCOUNT = 'nestegg-billing@nestegg-test.iam.gserviceaccount.com';
const PUSH_ACCOUNT = 'rtdn-push@nestegg-test.iam.gserviceaccount.com';
const PUSH_ISSUER = 'https://accounts.google.com';
const ACCESS_TOKEN_SECONDS = 3599;

export interface FakeStoreOptions {
  packageName?: string;
  /** Page size of the voided purchases list (the client must follow `nextPageToken`). */
  voidedPageSize?: number;
}

export class FakeGooglePlay {
  readonly packageName: string;
  readonly pushAudience = 'https://nestegg.test/api/billing/store/rtdn';
  readonly subscriptions = new Map<string, FakeSubscription>();
  readonly voided: FakeVoided[] = [];
  readonly calls: FakeCalls = {
    tokenExchanges: 0,
    maxConcurrentGetsPerToken: 0,
    gets: [],
    acknowledgements: [],
    cancellations: [],
    voidedLists: 0,
  };
  private readonly getsInFlight = new Map<string, number>();
  /** Answer every Developer API call with this status (an outage), or null to answer normally. */
  outage: number | null = null;
  /** Calls about these tokens answer 503 (a store failing for one purchase). */
  readonly failingTokens = new Set<string>();
  /** Answer acknowledgements only with this status, or null to answer normally. */
  acknowledgementOutage: number | null = null;
  /** Delay every Developer API answer by this many milliseconds. */
  latencyMs = 0;
  url = '';

  private readonly issuedTokens = new Set<string>();
  private server: ReturnType<typeof createServer> | null = null;
  private readonly voidedPageSize: number;

  private constructor(
    private readonly serviceAccountKey: KeyPair,
    private readonly pushKey: KeyPair,
    private readonly serviceAccountPem: string,
    options: FakeStoreOptions,
  ) {
    this.packageName = options.packageName ?? 'app.nestegg.test';
    this.voidedPageSize = options.voidedPageSize ?? 100;
  }

  static async start(options: FakeStoreOptions = {}): Promise<FakeGooglePlay> {
    const serviceAccountKey = await generateKeyPair('RS256', { extractable: true });
    const pushKey = await generateKeyPair('RS256', { extractable: true });
    const pem = await exportPKCS8(serviceAccountKey.privateKey);
    const store = new FakeGooglePlay(serviceAccountKey, pushKey, pem, options);
    await store.listen();
    return store;
  }

  /** The api's and the worker's store variables pointing at this fake. */
  env(): Record<string, string> {
    return {
      STORE_PACKAGE_NAME: this.packageName,
      STORE_SERVICE_ACCOUNT_EMAIL: SERVICE_ACCOUNT,
      STORE_SERVICE_ACCOUNT_PRIVATE_KEY: this.serviceAccountPem.replace(/\n/g, '\\n'),
      STORE_API_URL: this.url,
      STORE_TOKEN_URL: `${this.url}/token`,
      STORE_TIMEOUT_MS: '3000',
    };
  }

  /** The api's push variables pointing at this fake. */
  pushEnv(): Record<string, string> {
    return {
      STORE_PUSH_AUDIENCE: this.pushAudience,
      STORE_PUSH_SERVICE_ACCOUNT: PUSH_ACCOUNT,
      STORE_PUSH_JWKS_URL: `${this.url}/oauth2/v3/certs`,
      STORE_PUSH_ISSUERS: `${PUSH_ISSUER},accounts.google.com`,
    };
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    await new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    });
  }

  // -------------------------------------------------------------------------
  // Driving subscriptions
  // -------------------------------------------------------------------------

  /** A new auto-renewing subscription, ACTIVE and unacknowledged unless told otherwise; returns its token. */
  subscribe(productId: string, options: Partial<FakeSubscription> & { token?: string } = {}): string {
    const token = options.token ?? `gp-${randomBytes(12).toString('base64url')}`;
    this.subscriptions.set(token, {
      productId,
      state: options.state ?? 'SUBSCRIPTION_STATE_ACTIVE',
      expiryTime: options.expiryTime ?? new Date(Date.now() + 30 * 86_400_000),
      autoRenew: options.autoRenew ?? true,
      acknowledged: options.acknowledged ?? false,
      linkedPurchaseToken: options.linkedPurchaseToken,
      orderId: options.orderId ?? `GPA.${randomBytes(4).toString('hex')}-0`,
    });
    return token;
  }

  /** Changes a subscription as the store would (a renewal, a cancellation, a failed payment…). */
  update(token: string, changes: Partial<FakeSubscription>): void {
    const current = this.subscriptions.get(token);
    if (!current) throw new Error(`fake store: no subscription ${token}`);
    this.subscriptions.set(token, { ...current, ...changes });
  }

  /** The store voids the purchase (refund or chargeback). */
  voidPurchase(token: string, voidedTime = new Date()): void {
    const subscription = this.subscriptions.get(token);
    this.voided.push({ purchaseToken: token, orderId: subscription?.orderId ?? 'GPA.0', voidedTime });
    if (subscription) this.update(token, { state: 'SUBSCRIPTION_STATE_EXPIRED', autoRenew: false });
  }

  // -------------------------------------------------------------------------
  // Pushes (Pub/Sub push with an OIDC token, carrying a DeveloperNotification)
  // -------------------------------------------------------------------------

  /** A push token as Google signs it; `overrides` forge a wrong one. */
  async pushToken(
    overrides: {
      audience?: string;
      issuer?: string;
      email?: string;
      emailVerified?: boolean;
      expiresInSeconds?: number;
      foreignKey?: boolean;
    } = {},
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const key = overrides.foreignKey ? (await generateKeyPair('RS256')).privateKey : this.pushKey.privateKey;
    return new SignJWT({
      email: overrides.email ?? PUSH_ACCOUNT,
      email_verified: overrides.emailVerified ?? true,
      azp: '1000000000000000000',
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'push-1', typ: 'JWT' })
      .setIssuer(overrides.issuer ?? PUSH_ISSUER)
      .setAudience(overrides.audience ?? this.pushAudience)
      .setSubject('1000000000000000000')
      .setIssuedAt(now - 5)
      .setExpirationTime(now + (overrides.expiresInSeconds ?? 3600))
      .sign(key);
  }

  /** The push body Pub/Sub sends for a notification (`data` is the base64 JSON). */
  envelope(notification: object | string, messageId: string = randomUUID()) {
    const json = typeof notification === 'string' ? notification : JSON.stringify(notification);
    return {
      message: {
        data: Buffer.from(json, 'utf8').toString('base64'),
        messageId,
        message_id: messageId,
        publishTime: new Date().toISOString(),
        attributes: {},
      },
      subscription: 'projects/nestegg-test/subscriptions/play-rtdn',
    };
  }

  subscriptionNotification(notificationType: number, purchaseToken: string, packageName = this.packageName) {
    const subscription = this.subscriptions.get(purchaseToken);
    return {
      version: '1.0',
      packageName,
      eventTimeMillis: String(Date.now()),
      subscriptionNotification: {
        version: '1.0',
        notificationType,
        purchaseToken,
        subscriptionId: subscription?.productId ?? 'premium_monthly',
      },
    };
  }

  voidedNotification(purchaseToken: string, productType = 1) {
    return {
      version: '1.0',
      packageName: this.packageName,
      eventTimeMillis: String(Date.now()),
      voidedPurchaseNotification: { purchaseToken, orderId: 'GPA.0', productType, refundType: 1 },
    };
  }

  testNotification() {
    return {
      version: '1.0',
      packageName: this.packageName,
      eventTimeMillis: String(Date.now()),
      testNotification: { version: '1.0' },
    };
  }

  // -------------------------------------------------------------------------
  // HTTP
  // -------------------------------------------------------------------------

  private async listen(): Promise<void> {
    this.server = createServer((request, response) => {
      void this.handle(request, response).catch((error: unknown) => {
        reply(response, 500, { error: { code: 500, message: String(error) } });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', this.url);
    if (request.method === 'GET' && url.pathname === '/oauth2/v3/certs') return reply(response, 200, await this.jwks());
    if (request.method === 'POST' && url.pathname === '/token') return this.exchangeToken(body, response);
    const prefix = `/androidpublisher/v3/applications/${encodeURIComponent(this.packageName)}/purchases/`;
    if (!url.pathname.startsWith(prefix)) return reply(response, 404, googleError(404, 'Not found'));
    if (!this.authorized(request)) return reply(response, 401, googleError(401, 'Request had invalid credentials.'));
    const path = url.pathname.slice(prefix.length);
    const tokenGet = request.method === 'GET' ? /^subscriptionsv2\/tokens\/([^/:]+)$/.exec(path)?.[1] : undefined;
    if (tokenGet) this.trackGet(tokenGet, 1);
    try {
      if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
      if (this.outage !== null) return reply(response, this.outage, googleError(this.outage, 'Backend Error'));
      if ([...this.failingTokens].some((token) => path.includes(encodeURIComponent(token)))) {
        return reply(response, 503, googleError(503, 'Backend Error'));
      }
      return this.developerApi(request.method ?? 'GET', path, url.searchParams, response);
    } finally {
      if (tokenGet) this.trackGet(tokenGet, -1);
    }
  }

  private developerApi(method: string, path: string, query: URLSearchParams, response: ServerResponse) {
    let match = /^subscriptionsv2\/tokens\/([^/:]+)$/.exec(path);
    if (method === 'GET' && match) return this.getSubscription(decodeURIComponent(match[1]!), response);
    match = /^subscriptionsv2\/tokens\/([^/:]+):cancel$/.exec(path);
    if (method === 'POST' && match) return this.cancelSubscription(decodeURIComponent(match[1]!), response);
    match = /^subscriptions\/([^/]+)\/tokens\/([^/:]+):acknowledge$/.exec(path);
    if (method === 'POST' && match) return this.acknowledge(decodeURIComponent(match[2]!), response);
    if (method === 'GET' && path === 'voidedpurchases') return this.listVoided(query, response);
    return reply(response, 404, googleError(404, 'Not found'));
  }

  private getSubscription(token: string, response: ServerResponse) {
    this.calls.gets.push(token);
    const subscription = this.subscriptions.get(token);
    if (!subscription) return reply(response, 404, googleError(404, 'The purchase token does not exist.'));
    const pending = subscription.state === 'SUBSCRIPTION_STATE_PENDING';
    reply(response, 200, {
      kind: 'androidpublisher#subscriptionPurchaseV2',
      regionCode: 'KR',
      ...(pending ? {} : { startTime: new Date(subscription.expiryTime.getTime() - 30 * 86_400_000).toISOString() }),
      subscriptionState: subscription.state,
      latestOrderId: subscription.orderId,
      ...(subscription.linkedPurchaseToken ? { linkedPurchaseToken: subscription.linkedPurchaseToken } : {}),
      acknowledgementState: subscription.acknowledged
        ? 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED'
        : 'ACKNOWLEDGEMENT_STATE_PENDING',
      lineItems: [
        {
          productId: subscription.productId,
          expiryTime: subscription.expiryTime.toISOString(),
          autoRenewingPlan: { autoRenewEnabled: subscription.autoRenew },
          offerDetails: { basePlanId: 'base', offerTags: [] },
          latestSuccessfulOrderId: subscription.orderId,
        },
      ],
    });
  }

  private cancelSubscription(token: string, response: ServerResponse) {
    this.calls.cancellations.push(token);
    const subscription = this.subscriptions.get(token);
    if (!subscription) return reply(response, 404, googleError(404, 'The purchase token does not exist.'));
    const lapsed = ['SUBSCRIPTION_STATE_EXPIRED', 'SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED'];
    if (!lapsed.includes(subscription.state)) {
      this.update(token, { state: 'SUBSCRIPTION_STATE_CANCELED', autoRenew: false });
    }
    reply(response, 200, {});
  }

  private acknowledge(token: string, response: ServerResponse) {
    this.calls.acknowledgements.push(token);
    if (this.acknowledgementOutage !== null) {
      return reply(response, this.acknowledgementOutage, googleError(this.acknowledgementOutage, 'Backend Error'));
    }
    const subscription = this.subscriptions.get(token);
    if (!subscription) return reply(response, 404, googleError(404, 'The purchase token does not exist.'));
    this.update(token, { acknowledged: true });
    reply(response, 200, {});
  }

  private listVoided(query: URLSearchParams, response: ServerResponse) {
    this.calls.voidedLists += 1;
    const start = Number(query.get('startTime') ?? 0);
    const end = Number(query.get('endTime') ?? Date.now());
    const offset = Number(query.get('token') ?? 0);
    const matching = this.voided.filter(
      (entry) => entry.voidedTime.getTime() >= start && entry.voidedTime.getTime() <= end,
    );
    const page = matching.slice(offset, offset + this.voidedPageSize);
    const next = offset + this.voidedPageSize < matching.length ? String(offset + this.voidedPageSize) : undefined;
    reply(response, 200, {
      pageInfo: { totalResults: page.length, resultPerPage: this.voidedPageSize, startIndex: offset },
      ...(next ? { tokenPagination: { nextPageToken: next } } : {}),
      voidedPurchases: page.map((entry) => ({
        kind: 'androidpublisher#voidedPurchase',
        purchaseToken: entry.purchaseToken,
        purchaseTimeMillis: String(entry.voidedTime.getTime() - 86_400_000),
        voidedTimeMillis: String(entry.voidedTime.getTime()),
        orderId: entry.orderId,
        voidedSource: 0,
        voidedReason: 1,
        refundType: 1,
      })),
    });
  }

  /** RFC 7523 JWT bearer grant: the assertion must be signed by the service account for this endpoint. */
  private async exchangeToken(body: string, response: ServerResponse): Promise<void> {
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      return reply(response, 400, { error: 'unsupported_grant_type' });
    }
    try {
      const { payload } = await jwtVerify(form.get('assertion') ?? '', this.serviceAccountKey.publicKey, {
        issuer: SERVICE_ACCOUNT,
        audience: `${this.url}/token`,
        algorithms: ['RS256'],
      });
      if (payload.scope !== 'https://www.googleapis.com/auth/androidpublisher') throw new Error('scope');
    } catch {
      return reply(response, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    }
    this.calls.tokenExchanges += 1;
    const accessToken = `ya29.${randomBytes(24).toString('base64url')}`;
    this.issuedTokens.add(accessToken);
    reply(response, 200, { access_token: accessToken, expires_in: ACCESS_TOKEN_SECONDS, token_type: 'Bearer' });
  }

  private authorized(request: IncomingMessage): boolean {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    return token !== undefined && this.issuedTokens.has(token);
  }

  private trackGet(token: string, change: 1 | -1): void {
    const now = (this.getsInFlight.get(token) ?? 0) + change;
    this.getsInFlight.set(token, now);
    this.calls.maxConcurrentGetsPerToken = Math.max(this.calls.maxConcurrentGetsPerToken, now);
  }

  /** Forgets every access token it issued (the client must exchange again). */
  revokeAccessTokens(): void {
    this.issuedTokens.clear();
  }

  private async jwks() {
    return { keys: [{ ...(await exportJWK(this.pushKey.publicKey)), kid: 'push-1', alg: 'RS256', use: 'sig' }] };
  }
}

function googleError(code: number, message: string) {
  return { error: { code, message, status: code === 404 ? 'NOT_FOUND' : 'ERROR' } };
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(JSON.stringify(body));
}
