import type { Clock } from '@nestegg/domain';
import type { StoreApiConfig } from '../config.js';
import { PurchaseNotFoundError, StoreUnavailableError } from '../errors.js';
import { AccessTokenSource } from './access-token.js';
import { type StoreResponse, storeRequest } from './http.js';
import {
  type SubscriptionPurchaseV2,
  SubscriptionPurchaseV2Schema,
  type VoidedPurchase,
  VoidedPurchasesListSchema,
} from './types.js';

/** `purchases.voidedpurchases.list` `type=1`: voided in-app purchases and subscriptions. */
const VOIDED_TYPE_WITH_SUBSCRIPTIONS = '1';
const VOIDED_PAGE_SIZE = '1000';
/** A safety stop: 30 days of voided purchases of one app do not come near this many pages. */
const MAX_VOIDED_PAGES = 100;

/** How the store should treat a cancellation (`CancellationType` of `subscriptionsv2.cancel`). */
export type CancellationType = 'USER_REQUESTED_STOP_RENEWALS' | 'DEVELOPER_REQUESTED_STOP_PAYMENTS';

/** The calls the membership rules make to the store; implemented by `GooglePlayClient`. */
export interface StoreApi {
  readonly packageName: string;
  getSubscription(purchaseToken: string): Promise<SubscriptionPurchaseV2>;
  acknowledge(productId: string, purchaseToken: string): Promise<void>;
  cancel(purchaseToken: string, type: CancellationType): Promise<void>;
  listVoidedPurchases(window: { start: Date; end: Date }): Promise<VoidedPurchase[]>;
}

/**
 * The Google Play Developer API v3 (androidpublisher) for one app: subscription state
 * (`purchases.subscriptionsv2.get`), acknowledgement (`purchases.subscriptions.acknowledge`),
 * cancellation (`purchases.subscriptionsv2.cancel`) and voided purchases (`purchases.voidedpurchases.list`),
 * authenticated as a service account.
 */
export class GooglePlayClient implements StoreApi {
  readonly packageName: string;
  private readonly tokens: AccessTokenSource;

  constructor(
    private readonly config: StoreApiConfig,
    clock: Clock,
  ) {
    this.packageName = config.packageName;
    this.tokens = new AccessTokenSource(
      {
        email: config.serviceAccountEmail,
        privateKeyPem: config.privateKeyPem,
        tokenUrl: config.tokenUrl,
        timeoutMs: config.timeoutMs,
      },
      clock,
    );
  }

  /** The subscription's current state. Unknown (or expired for over 60 days) tokens: `PurchaseNotFoundError`. */
  async getSubscription(purchaseToken: string): Promise<SubscriptionPurchaseV2> {
    const response = await this.call('GET', `purchases/subscriptionsv2/tokens/${encodeURIComponent(purchaseToken)}`);
    this.refuseUnknownPurchase(response);
    const parsed = SubscriptionPurchaseV2Schema.safeParse(response.body);
    if (!parsed.success) throw new StoreUnavailableError('the store answered a subscription we cannot read');
    return parsed.data;
  }

  /** Acknowledges the purchase (the store refunds an unacknowledged one after three days). */
  async acknowledge(productId: string, purchaseToken: string): Promise<void> {
    const path = `purchases/subscriptions/${encodeURIComponent(productId)}/tokens/${encodeURIComponent(purchaseToken)}:acknowledge`;
    this.refuseUnknownPurchase(await this.call('POST', path, {}));
  }

  /** Stops the subscription's renewals; it stays valid until its expiry. */
  async cancel(purchaseToken: string, type: CancellationType): Promise<void> {
    const path = `purchases/subscriptionsv2/tokens/${encodeURIComponent(purchaseToken)}:cancel`;
    this.refuseUnknownPurchase(await this.call('POST', path, { cancellationContext: { cancellationType: type } }));
  }

  /** Purchases voided (refunded, charged back, revoked) between `start` and `end`, every page. */
  async listVoidedPurchases(window: { start: Date; end: Date }): Promise<VoidedPurchase[]> {
    const voided: VoidedPurchase[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_VOIDED_PAGES; page += 1) {
      const query = new URLSearchParams({
        startTime: String(window.start.getTime()),
        endTime: String(window.end.getTime()),
        type: VOIDED_TYPE_WITH_SUBSCRIPTIONS,
        maxResults: VOIDED_PAGE_SIZE,
        ...(pageToken ? { token: pageToken } : {}),
      });
      const response = await this.call('GET', `purchases/voidedpurchases?${query}`);
      const parsed = VoidedPurchasesListSchema.safeParse(response.body ?? {});
      if (response.status !== 200 || !parsed.success) {
        throw new StoreUnavailableError(`the store's voided purchases answered ${response.status}`);
      }
      voided.push(...parsed.data.voidedPurchases);
      pageToken = parsed.data.tokenPagination?.nextPageToken;
      if (!pageToken) return voided;
    }
    return voided;
  }

  private async call(method: 'GET' | 'POST', path: string, body?: object): Promise<StoreResponse> {
    const url = `${this.config.apiUrl}/androidpublisher/v3/applications/${encodeURIComponent(this.packageName)}/${path}`;
    const send = async () =>
      storeRequest(
        url,
        {
          method,
          headers: {
            authorization: `Bearer ${await this.tokens.get()}`,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        },
        this.config.timeoutMs,
      );
    let response = await send();
    if (response.status === 401) {
      this.tokens.invalidate();
      response = await send();
    }
    if (response.status >= 500 || response.status === 429 || response.status === 401 || response.status === 403) {
      throw new StoreUnavailableError(`the store answered ${response.status}`);
    }
    return response;
  }

  /** 400, 404 and 410 mean the store does not know the token (for this app); other 4xx are our fault. */
  private refuseUnknownPurchase(response: StoreResponse): void {
    if ([400, 404, 410].includes(response.status)) throw new PurchaseNotFoundError();
    if (response.status >= 300) throw new StoreUnavailableError(`the store answered ${response.status}`);
  }
}
