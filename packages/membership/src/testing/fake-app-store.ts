/**
 * A local stand-in for the App Store in tests: a certificate chain made here (root → intermediate → leaf, with
 * Apple's marker OIDs on the intermediate and the leaf) that signs transactions, renewal infos and App Store
 * Server Notifications V2 as Apple does (ES256 JWS with the chain in `x5c`); and the App Store Server API (Get All
 * Subscription Statuses, Get Transaction Info, Get Notification History, production and sandbox), which checks
 * the JWT signed by the in-app purchase key it handed out. Tests drive the subscriptions directly.
 */
import { randomBytes, randomUUID, webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @peculiar/x509 needs the Reflect metadata API before it loads.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { CompactSign, exportPKCS8, generateKeyPair, jwtVerify } from 'jose';
import jsrsasign from 'jsrsasign';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

/** Apple's marker on the leaf that signs App Store data, and on the Apple Worldwide Developer Relations intermediate. */
const LEAF_MARKER_OID = '1.2.840.113635.100.6.11.1';
const INTERMEDIATE_MARKER_OID = '1.2.840.113635.100.6.2.1';
const ASN1_NULL = new Uint8Array([0x05, 0x00]);
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

type Environment = 'Production' | 'Sandbox';

/** Get All Subscription Statuses' `status`: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked. */
export type AppleStatus = 1 | 2 | 3 | 4 | 5;

export interface FakeAppleSubscription {
  originalTransactionId: string;
  /** The latest transaction (a renewal or an upgrade makes a new one). */
  transactionId: string;
  productId: string;
  appAccountToken?: string | undefined;
  ownership: 'PURCHASED' | 'FAMILY_SHARED';
  environment: Environment;
  purchaseDate: Date;
  originalPurchaseDate: Date;
  expiresDate: Date;
  status: AppleStatus;
  autoRenew: boolean;
  /** The product the next renewal is for (a downgrade shows here first). */
  autoRenewProductId: string;
  gracePeriodExpiresDate?: Date | undefined;
  revocationDate?: Date | undefined;
}

export interface FakeAppStoreCalls {
  statuses: string[];
  transactionInfos: string[];
  histories: number;
  ocsp: number;
  /** The most status calls for one original transaction that were in flight at once. */
  maxConcurrentStatusesPerSubscription: number;
}

interface Chain {
  root: x509.X509Certificate;
  intermediate: x509.X509Certificate;
  leaf: x509.X509Certificate;
  leafKey: CryptoKey;
  intermediateKey: CryptoKey;
  /** Delegated OCSP responders (EKU OCSPSigning): one issued by the intermediate (for the leaf), one by the root. */
  responders: { forLeaf: Responder; forIntermediate: Responder };
}

interface Responder {
  certificate: x509.X509Certificate;
  keyPem: string;
}

/** What the fake's OCSP responder says about the chain's certificates. */
/** `silent`: the responder takes the request and never answers (a network that drops it). */
export type OcspAnswer = 'good' | 'revoked' | 'unavailable' | 'silent';

/** jsrsasign's OCSP classes its type definitions leave out. */
interface OcspModule {
  OCSPParser: new () => { getOCSPRequest(hex: string): { array: { sbjsn: string }[] } };
  OCSPResponse: new (params: object) => { getEncodedHex(): string };
}
const ocspModule = jsrsasign.KJUR.asn1.ocsp as unknown as OcspModule;
const OCSP_SIGNING = '1.3.6.1.5.5.7.3.9';

const pemOf = (certificate: x509.X509Certificate): string => certificate.toString('pem');
const generalizedTime = (date: Date): string =>
  `${date
    .toISOString()
    .replace(/[-:T]|\.\d+/g, '')
    .slice(0, 14)}Z`;

interface SignOptions {
  /** Sign with another chain, whose root the server does not trust. */
  foreignChain?: boolean;
  /** Claims to change (a wrong bundle id, another environment…). */
  claims?: Record<string, unknown>;
}

export interface FakeAppStoreOptions {
  bundleId?: string;
  appAppleId?: number;
}

const GROUP = '21000001';

export class FakeAppStore {
  readonly bundleId: string;
  readonly appAppleId: number;
  readonly issuerId = randomUUID();
  readonly keyId = randomBytes(5).toString('hex').toUpperCase();
  readonly subscriptions = new Map<string, FakeAppleSubscription>();
  /** Every notification made (Get Notification History serves them), newest last. */
  readonly sent: { signedPayload: string; signedDate: number; environment: Environment }[] = [];
  readonly calls: FakeAppStoreCalls = {
    statuses: [],
    transactionInfos: [],
    histories: 0,
    ocsp: 0,
    maxConcurrentStatusesPerSubscription: 0,
  };
  /** Answer every API call with this status (an outage), or null to answer normally. */
  outage: number | null = null;
  /** What the OCSP responder answers when the server checks revocation (`APPSTORE_ONLINE_CHECKS`). */
  ocsp: OcspAnswer = 'good';
  latencyMs = 0;
  url = '';

  private server: ReturnType<typeof createServer> | null = null;
  private chain!: Chain;
  private foreign: Chain | null = null;
  private apiKey!: Awaited<ReturnType<typeof generateKeyPair>>;
  private apiKeyPem = '';
  private readonly directory = mkdtempSync(join(tmpdir(), 'nestegg-fake-app-store-'));
  private readonly transactions = new Map<string, FakeAppleSubscription>();
  private readonly inFlight = new Map<string, number>();
  private sequence = 0;
  private leafSerial = 0x20;

  private constructor(options: FakeAppStoreOptions) {
    this.bundleId = options.bundleId ?? 'app.nestegg.test';
    this.appAppleId = options.appAppleId ?? 1_234_567_890;
  }

  static async start(options: FakeAppStoreOptions = {}): Promise<FakeAppStore> {
    const store = new FakeAppStore(options);
    await store.listen();
    store.chain = await store.makeChain('Nestegg Test');
    store.apiKey = await generateKeyPair('ES256', { extractable: true });
    store.apiKeyPem = await exportPKCS8(store.apiKey.privateKey);
    writeFileSync(join(store.directory, 'root.cer'), Buffer.from(store.chain.root.rawData));
    return store;
  }

  /** The api's and the worker's App Store variables pointing at this fake (online checks off). */
  env(): Record<string, string> {
    return {
      APPSTORE_BUNDLE_ID: this.bundleId,
      APPSTORE_APP_APPLE_ID: String(this.appAppleId),
      APPSTORE_ISSUER_ID: this.issuerId,
      APPSTORE_KEY_ID: this.keyId,
      APPSTORE_PRIVATE_KEY: this.apiKeyPem.replace(/\n/g, '\\n'),
      APPSTORE_ENVIRONMENT: 'Production',
      APPSTORE_ROOT_CERTIFICATES: this.rootCertificatePath,
      APPSTORE_ONLINE_CHECKS: 'false',
      APPSTORE_API_URL: this.url,
      APPSTORE_SANDBOX_API_URL: `${this.url}/sandbox`,
      STORE_TIMEOUT_MS: '3000',
    };
  }

  /** The test root (DER), which the server is configured to trust. */
  get rootCertificatePath(): string {
    return join(this.directory, 'root.cer');
  }

  async close(): Promise<void> {
    rmSync(this.directory, { recursive: true, force: true });
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

  /** A new subscription, active and auto-renewing for 30 days unless told otherwise; returns its original transaction id. */
  subscribe(productId: string, options: Partial<FakeAppleSubscription> = {}): string {
    const originalTransactionId = options.originalTransactionId ?? this.nextTransactionId();
    const now = new Date();
    const subscription: FakeAppleSubscription = {
      originalTransactionId,
      transactionId: originalTransactionId,
      productId,
      ownership: 'PURCHASED',
      environment: 'Production',
      purchaseDate: now,
      originalPurchaseDate: now,
      expiresDate: new Date(now.getTime() + 30 * DAY),
      status: 1,
      autoRenew: true,
      autoRenewProductId: productId,
      ...options,
    };
    this.subscriptions.set(originalTransactionId, subscription);
    this.transactions.set(subscription.transactionId, { ...subscription });
    return originalTransactionId;
  }

  /** Changes a subscription as the App Store would (a failed payment, a refund, auto-renew off…). */
  update(originalTransactionId: string, changes: Partial<FakeAppleSubscription>): FakeAppleSubscription {
    const current = this.subscription(originalTransactionId);
    const next = { ...current, ...changes };
    this.subscriptions.set(originalTransactionId, next);
    this.transactions.set(next.transactionId, { ...next });
    return next;
  }

  /** A renewal (or an upgrade): a new transaction until `expiresDate`, active. */
  renew(originalTransactionId: string, expiresDate: Date, productId?: string): string {
    const current = this.subscription(originalTransactionId);
    const transactionId = this.nextTransactionId();
    this.update(originalTransactionId, {
      transactionId,
      productId: productId ?? current.autoRenewProductId,
      autoRenewProductId: productId ?? current.autoRenewProductId,
      purchaseDate: new Date(),
      expiresDate,
      status: 1,
      gracePeriodExpiresDate: undefined,
      revocationDate: undefined,
    });
    return transactionId;
  }

  /** Apple refunds the latest transaction (or family sharing withdraws it): revoked. */
  revoke(originalTransactionId: string, at = new Date()): void {
    this.update(originalTransactionId, { status: 5, revocationDate: at, autoRenew: false });
  }

  subscription(originalTransactionId: string): FakeAppleSubscription {
    const subscription = this.subscriptions.get(originalTransactionId);
    if (!subscription) throw new Error(`fake App Store: no subscription ${originalTransactionId}`);
    return subscription;
  }

  // -------------------------------------------------------------------------
  // Signed data
  // -------------------------------------------------------------------------

  /** The subscription's latest transaction as StoreKit 2 hands it to the app (`jwsRepresentation`). */
  signedTransaction(originalTransactionId: string, options: SignOptions = {}): Promise<string> {
    return this.sign(this.transactionPayload(this.subscription(originalTransactionId)), options);
  }

  /** An Xcode-signed transaction (StoreKit testing in Xcode): no App Store chain behind it. */
  async xcodeTransaction(productId: string, appAccountToken: string, expiresDate: Date): Promise<string> {
    const now = Date.now();
    const id = String(this.sequence++ + 1);
    const payload = {
      transactionId: id,
      originalTransactionId: id,
      bundleId: this.bundleId,
      productId,
      subscriptionGroupIdentifier: GROUP,
      purchaseDate: now,
      originalPurchaseDate: now,
      expiresDate: expiresDate.getTime(),
      quantity: 1,
      type: 'Auto-Renewable Subscription',
      appAccountToken,
      inAppOwnershipType: 'PURCHASED',
      signedDate: now,
      environment: 'Xcode',
      transactionReason: 'PURCHASE',
    };
    const { privateKey } = await generateKeyPair('ES256');
    return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'ES256', kid: 'Apple_Xcode_Key' })
      .sign(privateKey);
  }

  /**
   * An App Store Server Notification V2 (`signedPayload`) about a subscription, recorded for the notification
   * history; `options.claims` change the payload, `options.foreignChain` forges the signature.
   */
  async notification(
    notificationType: string,
    originalTransactionId: string | null,
    subtype?: string,
    options: SignOptions & { innerForeignChain?: boolean } = {},
  ): Promise<{ signedPayload: string; notificationUUID: string }> {
    const subscription = originalTransactionId ? this.subscription(originalTransactionId) : null;
    const environment = subscription?.environment ?? 'Production';
    const notificationUUID = randomUUID();
    const inner = { foreignChain: options.innerForeignChain ?? false };
    const payload = {
      notificationType,
      ...(subtype ? { subtype } : {}),
      notificationUUID,
      version: '2.0',
      signedDate: Date.now(),
      data: {
        appAppleId: this.appAppleId,
        bundleId: this.bundleId,
        bundleVersion: '1.0',
        environment,
        ...(subscription
          ? {
              signedTransactionInfo: await this.sign(this.transactionPayload(subscription), inner),
              signedRenewalInfo: await this.sign(this.renewalPayload(subscription), inner),
              status: subscription.status,
            }
          : {}),
      },
    };
    const signedPayload = await this.sign(payload, options);
    if (!options.foreignChain && !options.claims) {
      this.sent.push({ signedPayload, signedDate: payload.signedDate, environment });
    }
    return { signedPayload, notificationUUID };
  }

  // -------------------------------------------------------------------------
  // HTTP
  // -------------------------------------------------------------------------

  private async listen(): Promise<void> {
    this.server = createServer((request, response) => {
      void this.handle(request, response).catch((error: unknown) => reply(response, 500, { error: String(error) }));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', this.url);
    if (url.pathname === '/ocsp') {
      this.calls.ocsp += 1;
      if (this.ocsp === 'silent') return;
      if (this.ocsp === 'unavailable') {
        response.writeHead(503);
        response.end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/ocsp-response' });
      response.end(this.ocspResponse(Buffer.concat(chunks)));
      return;
    }
    const sandbox = url.pathname.startsWith('/sandbox/');
    const path = sandbox ? url.pathname.slice('/sandbox'.length) : url.pathname;
    const environment: Environment = sandbox ? 'Sandbox' : 'Production';
    if (!(await this.authorized(request))) return reply(response, 401, {});
    const status = /^\/inApps\/v1\/subscriptions\/([^/]+)$/.exec(path)?.[1];
    if (status) this.track(status, 1);
    try {
      if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
      if (this.outage !== null) return reply(response, this.outage, { errorCode: 5000000, errorMessage: 'outage' });
      if (request.method === 'GET' && status) return this.statuses(decodeURIComponent(status), environment, response);
      const transaction = /^\/inApps\/v1\/transactions\/([^/]+)$/.exec(path)?.[1];
      if (request.method === 'GET' && transaction) {
        return this.transactionInfo(decodeURIComponent(transaction), environment, response);
      }
      if (request.method === 'POST' && path === '/inApps/v1/notifications/history') {
        return this.history(JSON.parse(body || '{}'), url.searchParams.get('paginationToken'), environment, response);
      }
      return reply(response, 404, { errorCode: 4040000, errorMessage: 'Not found' });
    } finally {
      if (status) this.track(status, -1);
    }
  }

  private async statuses(originalTransactionId: string, environment: Environment, response: ServerResponse) {
    this.calls.statuses.push(originalTransactionId);
    const subscription = this.subscriptions.get(originalTransactionId);
    if (!subscription || subscription.environment !== environment) {
      return reply(response, 404, { errorCode: 4040010, errorMessage: 'Transaction id not found.' });
    }
    reply(response, 200, {
      environment,
      bundleId: this.bundleId,
      appAppleId: this.appAppleId,
      data: [
        {
          subscriptionGroupIdentifier: GROUP,
          lastTransactions: [
            {
              status: subscription.status,
              originalTransactionId,
              signedTransactionInfo: await this.sign(this.transactionPayload(subscription)),
              signedRenewalInfo: await this.sign(this.renewalPayload(subscription)),
            },
          ],
        },
      ],
    });
  }

  private async transactionInfo(transactionId: string, environment: Environment, response: ServerResponse) {
    this.calls.transactionInfos.push(transactionId);
    const snapshot = this.transactions.get(transactionId);
    if (!snapshot || snapshot.environment !== environment) {
      return reply(response, 404, { errorCode: 4040010, errorMessage: 'Transaction id not found.' });
    }
    reply(response, 200, { signedTransactionInfo: await this.sign(this.transactionPayload(snapshot)) });
  }

  private history(
    request: { startDate?: number; endDate?: number },
    paginationToken: string | null,
    environment: Environment,
    response: ServerResponse,
  ) {
    this.calls.histories += 1;
    const pageSize = 2;
    const matching = this.sent.filter(
      (entry) =>
        entry.environment === environment &&
        entry.signedDate >= (request.startDate ?? 0) &&
        entry.signedDate <= (request.endDate ?? Date.now()),
    );
    const offset = Number(paginationToken ?? 0);
    const page = matching.slice(offset, offset + pageSize);
    const hasMore = offset + pageSize < matching.length;
    reply(response, 200, {
      hasMore,
      ...(hasMore ? { paginationToken: String(offset + pageSize) } : {}),
      notificationHistory: page.map((entry) => ({
        signedPayload: entry.signedPayload,
        sendAttempts: [{ attemptDate: entry.signedDate, sendAttemptResult: 'TIMED_OUT' }],
      })),
    });
  }

  /**
   * A signed OCSP response about the certificate the request names (by serial: the leaf or the intermediate),
   * from a responder its issuer delegated to, saying `good` or `revoked` as the test set it.
   */
  private ocspResponse(request: Buffer): Buffer {
    const [asked] = new ocspModule.OCSPParser().getOCSPRequest(request.toString('hex')).array;
    const { chain } = this;
    const aboutLeaf = asked?.sbjsn !== chain.intermediate.serialNumber;
    const [issuer, subject, responder] = aboutLeaf
      ? [chain.intermediate, chain.leaf, chain.responders.forLeaf]
      : [chain.root, chain.intermediate, chain.responders.forIntermediate];
    const now = Date.now();
    const response = new ocspModule.OCSPResponse({
      resstatus: 0,
      restype: 'ocspBasic',
      respid: { name: pemOf(responder.certificate) },
      prodat: generalizedTime(new Date(now)),
      array: [
        {
          certid: { alg: 'sha256', issuerCert: pemOf(issuer), subjectCert: pemOf(subject) },
          status:
            this.ocsp === 'revoked'
              ? { status: 'revoked', time: generalizedTime(new Date(now - DAY)) }
              : { status: 'good' },
          thisupdate: generalizedTime(new Date(now - 60_000)),
          nextupdate: generalizedTime(new Date(now + DAY)),
        },
      ],
      certs: [pemOf(responder.certificate)],
      sigalg: 'SHA256withECDSA',
      reskey: responder.keyPem,
    });
    return Buffer.from(response.getEncodedHex(), 'hex');
  }

  /** The App Store Server API's JWT: ES256 with the key handed out, our issuer, key id and bundle id. */
  private async authorized(request: IncomingMessage): Promise<boolean> {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!token) return false;
    try {
      const { payload, protectedHeader } = await jwtVerify(token, this.apiKey.publicKey, {
        issuer: this.issuerId,
        audience: 'appstoreconnect-v1',
        algorithms: ['ES256'],
      });
      return protectedHeader.kid === this.keyId && payload.bid === this.bundleId;
    } catch {
      return false;
    }
  }

  private track(originalTransactionId: string, change: 1 | -1): void {
    const now = (this.inFlight.get(originalTransactionId) ?? 0) + change;
    this.inFlight.set(originalTransactionId, now);
    this.calls.maxConcurrentStatusesPerSubscription = Math.max(this.calls.maxConcurrentStatusesPerSubscription, now);
  }

  // -------------------------------------------------------------------------
  // Certificates and signing
  // -------------------------------------------------------------------------

  private nextTransactionId(): string {
    this.sequence += 1;
    return `2000000${String(Date.now()).slice(-6)}${String(this.sequence).padStart(4, '0')}`;
  }

  private transactionPayload(subscription: FakeAppleSubscription) {
    return {
      transactionId: subscription.transactionId,
      originalTransactionId: subscription.originalTransactionId,
      webOrderLineItemId: `${subscription.transactionId}1`,
      bundleId: this.bundleId,
      productId: subscription.productId,
      subscriptionGroupIdentifier: GROUP,
      purchaseDate: subscription.purchaseDate.getTime(),
      originalPurchaseDate: subscription.originalPurchaseDate.getTime(),
      expiresDate: subscription.expiresDate.getTime(),
      quantity: 1,
      type: 'Auto-Renewable Subscription',
      ...(subscription.appAccountToken ? { appAccountToken: subscription.appAccountToken } : {}),
      inAppOwnershipType: subscription.ownership,
      signedDate: Date.now(),
      environment: subscription.environment,
      transactionReason: subscription.transactionId === subscription.originalTransactionId ? 'PURCHASE' : 'RENEWAL',
      storefront: 'KOR',
      storefrontId: '143466',
      price: 4900000,
      currency: 'KRW',
      ...(subscription.revocationDate
        ? { revocationDate: subscription.revocationDate.getTime(), revocationReason: 0 }
        : {}),
    };
  }

  private renewalPayload(subscription: FakeAppleSubscription) {
    return {
      originalTransactionId: subscription.originalTransactionId,
      autoRenewProductId: subscription.autoRenewProductId,
      productId: subscription.productId,
      autoRenewStatus: subscription.autoRenew ? 1 : 0,
      ...(subscription.status === 3 || subscription.status === 4 ? { isInBillingRetryPeriod: true } : {}),
      ...(subscription.gracePeriodExpiresDate
        ? { gracePeriodExpiresDate: subscription.gracePeriodExpiresDate.getTime() }
        : {}),
      signedDate: Date.now(),
      environment: subscription.environment,
      recentSubscriptionStartDate: subscription.originalPurchaseDate.getTime(),
      renewalDate: subscription.expiresDate.getTime(),
      ...(subscription.appAccountToken ? { appAccountToken: subscription.appAccountToken } : {}),
    };
  }

  private async sign(payload: object, options: SignOptions = {}): Promise<string> {
    const chain = options.foreignChain ? await this.foreignChain() : this.chain;
    const x5c = [chain.leaf, chain.intermediate, chain.root].map((certificate) =>
      Buffer.from(certificate.rawData).toString('base64'),
    );
    return new CompactSign(new TextEncoder().encode(JSON.stringify({ ...payload, ...options.claims })))
      .setProtectedHeader({ alg: 'ES256', x5c })
      .sign(chain.leafKey);
  }

  private async foreignChain(): Promise<Chain> {
    this.foreign ??= await this.makeChain('Intruder');
    return this.foreign;
  }

  /**
   * A new signing certificate under the same intermediate (Apple rotates them): a server that verified the old
   * one with online checks keeps it for 15 minutes, so a test of a revocation check signs with a new one.
   */
  async rotateLeaf(): Promise<void> {
    this.leafSerial += 1;
    const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
    const serial = this.leafSerial.toString(16).padStart(2, '0');
    const leaf = await this.makeLeaf(
      'Nestegg Test',
      serial,
      this.chain.intermediate,
      this.chain.intermediateKey,
      keys.publicKey,
    );
    this.chain = { ...this.chain, leaf, leafKey: keys.privateKey };
  }

  private makeLeaf(
    name: string,
    serialNumber: string,
    intermediate: x509.X509Certificate,
    intermediateKey: CryptoKey,
    publicKey: CryptoKey,
  ): Promise<x509.X509Certificate> {
    return x509.X509CertificateGenerator.create({
      serialNumber,
      subject: `CN=${name} Prod ECC Mac App Store and iTunes Store Receipt Signing, O=Nestegg Test, C=US`,
      issuer: intermediate.subject,
      notBefore: new Date(Date.now() - DAY),
      notAfter: new Date(Date.now() + 3650 * DAY),
      publicKey: publicKey as never,
      signingKey: intermediateKey as never,
      signingAlgorithm: EC,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.Extension(LEAF_MARKER_OID, false, ASN1_NULL),
        new x509.AuthorityInfoAccessExtension({ ocsp: `${this.url}/ocsp` }),
      ],
    });
  }

  /** Root (self-signed CA) → intermediate (CA, Apple's WWDR marker) → leaf (Apple's signing marker), EC P-256. */
  private async makeChain(name: string): Promise<Chain> {
    const notBefore = new Date(Date.now() - DAY);
    const notAfter = new Date(Date.now() + 3650 * DAY);
    const keys = async () =>
      (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
    const [rootKeys, intermediateKeys, leafKeys] = await Promise.all([keys(), keys(), keys()]);
    const ocsp = new x509.AuthorityInfoAccessExtension({ ocsp: `${this.url}/ocsp` });
    const root = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '01',
      name: `CN=${name} Root CA - G3, O=Nestegg Test, C=US`,
      notBefore,
      notAfter,
      keys: rootKeys as never,
      signingAlgorithm: EC,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      ],
    });
    const intermediate = await x509.X509CertificateGenerator.create({
      serialNumber: '02',
      subject: `CN=${name} Worldwide Developer Relations Certification Authority, O=Nestegg Test, C=US`,
      issuer: root.subject,
      notBefore,
      notAfter,
      publicKey: intermediateKeys.publicKey as never,
      signingKey: rootKeys.privateKey as never,
      signingAlgorithm: EC,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        new x509.Extension(INTERMEDIATE_MARKER_OID, false, ASN1_NULL),
        ocsp,
      ],
    });
    const leaf = await this.makeLeaf(name, '03', intermediate, intermediateKeys.privateKey, leafKeys.publicKey);
    const responder = async (serialNumber: string, issuerCertificate: x509.X509Certificate, issuerKey: CryptoKey) => {
      const responderKeys = await keys();
      const certificate = await x509.X509CertificateGenerator.create({
        serialNumber,
        subject: `CN=${name} OCSP Responder ${serialNumber}, O=Nestegg Test, C=US`,
        issuer: issuerCertificate.subject,
        notBefore,
        notAfter,
        publicKey: responderKeys.publicKey as never,
        signingKey: issuerKey as never,
        signingAlgorithm: EC,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([OCSP_SIGNING]),
        ],
      });
      const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', responderKeys.privateKey));
      const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8
        .toString('base64')
        .replace(/(.{64})/g, '$1\n')
        .trim()}\n-----END PRIVATE KEY-----\n`;
      return { certificate, keyPem };
    };
    const responders = {
      forLeaf: await responder('13', intermediate, intermediateKeys.privateKey),
      forIntermediate: await responder('12', root, rootKeys.privateKey),
    };
    return {
      root,
      intermediate,
      leaf,
      leafKey: leafKeys.privateKey,
      intermediateKey: intermediateKeys.privateKey,
      responders,
    };
  }
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
