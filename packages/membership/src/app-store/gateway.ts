/**
 * The App Store through Apple's own library (`@apple/app-store-server-library`, decision BL24): signed data
 * verified by `SignedDataVerifier` (the x5c chain to the configured root, Apple's marker OIDs on the leaf and the
 * intermediate, the bundle id, the app Apple id in production, the environment, OCSP when online checks are on),
 * and the App Store Server API called by `AppStoreServerAPIClient` with a JWT signed by the team's in-app purchase
 * key. Every error comes back as one of ours: a signature that does not verify is `SignatureRejectedError`, a
 * check that could not finish (OCSP, network) and an API that does not answer are `StoreUnavailableError`.
 */
import {
  APIException,
  AppStoreServerAPIClient,
  Environment,
  type JWSRenewalInfoDecodedPayload,
  type JWSTransactionDecodedPayload,
  type ResponseBodyV2DecodedPayload,
  SignedDataVerifier,
  VerificationException,
  VerificationStatus,
} from '@apple/app-store-server-library';
import type { AppStoreConfig } from '../config.js';
import { PurchaseNotFoundError, SignatureRejectedError, StoreUnavailableError } from '../errors.js';

/** Where signed data comes from: the App Store (production, sandbox) or Xcode's StoreKit testing. */
export type AppStoreEnvironment = 'Production' | 'Sandbox' | 'Xcode';

export interface VerifiedTransaction {
  environment: AppStoreEnvironment;
  transaction: JWSTransactionDecodedPayload;
}

export interface VerifiedNotification {
  environment: AppStoreEnvironment;
  payload: ResponseBodyV2DecodedPayload;
  transaction: JWSTransactionDecodedPayload | null;
  renewal: JWSRenewalInfoDecodedPayload | null;
}

/** One subscription as the App Store Server API says it is now (Get All Subscription Statuses). */
export interface SubscriptionStatus {
  environment: AppStoreEnvironment;
  /** 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked. */
  status: number;
  transaction: JWSTransactionDecodedPayload;
  renewal: JWSRenewalInfoDecodedPayload | null;
}

/** Error codes of the App Store Server API that mean "no such transaction" (for this app and environment). */
const NOT_FOUND_CODES = new Set([4000006, 4000008, 4040005, 4040010]);
const HISTORY_PAGES = 100;

/** The library's API client, pointed at a configurable base URL (a fake in tests) and bounded in time. */
class TimedApiClient extends AppStoreServerAPIClient {
  constructor(
    config: AppStoreConfig,
    environment: Environment,
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {
    super(config.privateKeyPem, config.keyId, config.issuerId, config.bundleId, environment);
  }

  /** The library types this with node-fetch's Response; the global one has what it reads (ok, status, json). */
  protected override async makeFetchRequest(
    ...args: Parameters<AppStoreServerAPIClient['makeFetchRequest']>
  ): ReturnType<AppStoreServerAPIClient['makeFetchRequest']> {
    const [path, query, method, body, headers] = args;
    const response = await fetch(`${this.baseUrl}${path}?${query}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : new Uint8Array(body) }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    return response as unknown as Awaited<ReturnType<AppStoreServerAPIClient['makeFetchRequest']>>;
  }
}

/** Reads a JWS's payload without verifying it (only to pick the verifier its environment needs). */
function unverifiedPayload(jws: string): Record<string, unknown> {
  const part = jws.split('.')[1];
  if (!part) throw new SignatureRejectedError('not a JWS');
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    if (typeof value !== 'object' || value === null) throw new Error('not an object');
    return value as Record<string, unknown>;
  } catch {
    throw new SignatureRejectedError('not a JWS');
  }
}

const REASONS: Partial<Record<VerificationStatus, string>> = {
  [VerificationStatus.INVALID_APP_IDENTIFIER]: 'signed for another app',
  [VerificationStatus.INVALID_ENVIRONMENT]: 'signed for another environment',
  [VerificationStatus.INVALID_CHAIN_LENGTH]: 'the certificate chain is not three certificates',
  [VerificationStatus.INVALID_CERTIFICATE]: 'a certificate is malformed, expired or revoked',
  [VerificationStatus.VERIFICATION_FAILURE]: 'the signature or certificate chain does not verify',
  [VerificationStatus.FAILURE]: 'the signed data is malformed',
};

/**
 * Maps the library's verification errors to ours, within `timeoutMs`: the library's own bound on a revocation
 * check (OCSP) is 30 s, longer than a request or Apple's notification delivery should wait (decision BL29).
 */
async function verified<T>(verify: () => Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreUnavailableError(`the certificate status (OCSP) did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([verify(), deadline]);
  } catch (error) {
    if (error instanceof VerificationException) {
      if (error.status === VerificationStatus.RETRYABLE_VERIFICATION_FAILURE) {
        throw new StoreUnavailableError('the certificate status (OCSP) could not be checked');
      }
      throw new SignatureRejectedError(REASONS[error.status] ?? 'unknown verification failure');
    }
    if (error instanceof SignatureRejectedError || error instanceof StoreUnavailableError) throw error;
    throw new SignatureRejectedError((error as Error).message ?? 'unreadable');
  } finally {
    clearTimeout(timer);
  }
}

/** Maps the API client's failures to ours. */
async function called<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof APIException) {
      if (error.httpStatusCode === 404 || NOT_FOUND_CODES.has(Number(error.apiError))) {
        throw new PurchaseNotFoundError();
      }
      throw new StoreUnavailableError(`the App Store Server API answered ${error.httpStatusCode}`);
    }
    if (error instanceof SignatureRejectedError) {
      throw new StoreUnavailableError(`the App Store Server API sent data that does not verify (${error.reason})`);
    }
    throw new StoreUnavailableError(`the App Store Server API did not answer (${(error as Error).name})`);
  }
}

/** The App Store for one app: signed data in every environment this server accepts, and the server API. */
export class AppStoreGateway {
  readonly bundleId: string;
  private readonly verifiers = new Map<AppStoreEnvironment, SignedDataVerifier>();
  private readonly clients = new Map<'Production' | 'Sandbox', TimedApiClient>();

  constructor(
    private readonly config: AppStoreConfig,
    /** Xcode-signed transactions (StoreKit testing) are accepted in test mode only. */
    private readonly testMode: boolean,
  ) {
    this.bundleId = config.bundleId;
    const environments: ('Production' | 'Sandbox')[] =
      config.environment === 'Sandbox' ? ['Sandbox'] : ['Production', 'Sandbox'];
    for (const environment of environments) {
      const library = environment === 'Production' ? Environment.PRODUCTION : Environment.SANDBOX;
      this.verifiers.set(
        environment,
        new SignedDataVerifier(
          config.rootCertificates,
          config.onlineChecks,
          library,
          config.bundleId,
          config.appAppleId,
        ),
      );
      const url = environment === 'Production' ? config.apiUrl : config.sandboxApiUrl;
      this.clients.set(environment, new TimedApiClient(config, library, url, config.timeoutMs));
    }
    if (testMode) {
      this.verifiers.set(
        'Xcode',
        new SignedDataVerifier([], false, Environment.XCODE, config.bundleId, config.appAppleId),
      );
    }
  }

  private verified<T>(verify: () => Promise<T>): Promise<T> {
    return verified(verify, this.config.timeoutMs);
  }

  /** Whether purchases of this environment grant PREMIUM here (decision BL25). */
  grants(environment: AppStoreEnvironment): boolean {
    if (environment === 'Xcode') return this.testMode;
    if (environment === 'Sandbox') return this.config.sandboxPurchases;
    return true;
  }

  /** A signed transaction from the app (StoreKit 2 `jwsRepresentation`). */
  async verifyTransaction(jws: string): Promise<VerifiedTransaction> {
    const environment = this.environmentOf(unverifiedPayload(jws).environment);
    const transaction = await this.verified(() => this.verifier(environment).verifyAndDecodeTransaction(jws));
    return { environment, transaction };
  }

  /** A notification's `signedPayload`, and the transaction and renewal info signed inside it. */
  async verifyNotification(signedPayload: string): Promise<VerifiedNotification> {
    const claimed = unverifiedPayload(signedPayload);
    const inner = (claimed.data ?? claimed.summary ?? claimed.appData) as Record<string, unknown> | undefined;
    const environment = this.environmentOf(inner?.environment);
    if (environment === 'Xcode') throw new SignatureRejectedError('Xcode does not send notifications');
    const verifier = this.verifier(environment);
    const payload = await this.verified(() => verifier.verifyAndDecodeNotification(signedPayload));
    const signedTransaction = payload.data?.signedTransactionInfo;
    const signedRenewal = payload.data?.signedRenewalInfo;
    const transaction = signedTransaction
      ? await this.verified(() => verifier.verifyAndDecodeTransaction(signedTransaction))
      : null;
    const renewal = signedRenewal
      ? await this.verified(() => verifier.verifyAndDecodeRenewalInfo(signedRenewal))
      : null;
    return { environment, payload, transaction, renewal };
  }

  /** Get Transaction Info: production first, then the sandbox (Apple's advice: App Review buys in the sandbox). */
  async transactionInfo(transactionId: string): Promise<VerifiedTransaction> {
    let lastNotFound: PurchaseNotFoundError | undefined;
    for (const [environment, client] of this.clients) {
      try {
        const answer = await called(() => client.getTransactionInfo(transactionId));
        if (!answer.signedTransactionInfo) throw new PurchaseNotFoundError();
        const signed = answer.signedTransactionInfo;
        const transaction = await called(() =>
          this.verified(() => this.verifier(environment).verifyAndDecodeTransaction(signed)),
        );
        return { environment, transaction };
      } catch (error) {
        if (!(error instanceof PurchaseNotFoundError)) throw error;
        lastNotFound = error;
      }
    }
    throw lastNotFound ?? new PurchaseNotFoundError();
  }

  /** Get All Subscription Statuses for one subscription: the store's truth about it now. */
  async subscriptionStatus(
    originalTransactionId: string,
    environment: 'Production' | 'Sandbox',
  ): Promise<SubscriptionStatus> {
    const client = this.clients.get(environment);
    if (!client) throw new PurchaseNotFoundError();
    const answer = await called(() => client.getAllSubscriptionStatuses(originalTransactionId));
    const item = (answer.data ?? [])
      .flatMap((group) => group.lastTransactions ?? [])
      .find((last) => last.originalTransactionId === originalTransactionId);
    if (!item?.signedTransactionInfo || typeof item.status !== 'number') throw new PurchaseNotFoundError();
    const verifier = this.verifier(environment);
    const signedTransaction = item.signedTransactionInfo;
    const signedRenewal = item.signedRenewalInfo;
    const transaction = await called(() => this.verified(() => verifier.verifyAndDecodeTransaction(signedTransaction)));
    const renewal = signedRenewal
      ? await called(() => this.verified(() => verifier.verifyAndDecodeRenewalInfo(signedRenewal)))
      : null;
    return { environment, status: item.status, transaction, renewal };
  }

  /** Get Notification History: every notification Apple sent (or tried to) in the window, each environment. */
  async notificationHistory(window: { start: Date; end: Date }): Promise<string[]> {
    const payloads: string[] = [];
    for (const client of this.clients.values()) {
      let token: string | null = null;
      for (let page = 0; page < HISTORY_PAGES; page += 1) {
        const answer = await called(() =>
          client.getNotificationHistory(token, {
            startDate: window.start.getTime(),
            endDate: window.end.getTime(),
          }),
        );
        for (const item of answer.notificationHistory ?? []) if (item.signedPayload) payloads.push(item.signedPayload);
        if (!answer.hasMore || !answer.paginationToken) break;
        token = answer.paginationToken;
      }
    }
    return payloads;
  }

  private environmentOf(claimed: unknown): AppStoreEnvironment {
    if (claimed === 'Production' || claimed === 'Sandbox') {
      if (!this.verifiers.has(claimed)) throw new SignatureRejectedError(`signed for ${claimed}`);
      return claimed;
    }
    if (claimed === 'Xcode') {
      if (!this.testMode) throw new SignatureRejectedError('Xcode-signed data is accepted in test mode only');
      return 'Xcode';
    }
    throw new SignatureRejectedError('no known environment');
  }

  private verifier(environment: AppStoreEnvironment): SignedDataVerifier {
    const verifier = this.verifiers.get(environment);
    if (!verifier) throw new SignatureRejectedError(`signed for ${environment}`);
    return verifier;
  }
}
