import type {
  AppAccountToken,
  AppStoreVerifyRequest,
  Product,
  Store,
  StoreAction,
  Subscription,
  VerifyPurchaseRequest,
} from '@nestegg/contract';
import type { Database, IapPurchase } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import {
  type AppStoreSync,
  appAccountTokenOf,
  type MembershipSync,
  type ProductCatalog,
  PurchaseNotFoundError,
  StoreNotConfiguredError,
  type SyncResult,
} from '@nestegg/membership';
import { AppError, NotFoundError, ValidationFailedError } from '../../../lib/errors.js';
import type { SessionStore } from '../../members/auth/index.js';
import { asProblems, problemFor } from './problems.js';
import { type ManageUrlOf, type ManageUrls, readSubscription } from './subscription.view.js';

export interface BillingServiceDeps {
  db: Database;
  sync: MembershipSync;
  appStore: AppStoreSync;
  sessions: SessionStore;
  catalog: ProductCatalog;
  clock: Clock;
  /** Each store's subscription management page (`STORE_MANAGE_URL`, `APPSTORE_MANAGE_URL`). */
  manageUrls: ManageUrls;
  /** The app's package in Google Play; null when it is not configured. */
  packageName: string | null;
}

export interface VerifyResult {
  /** Nothing is granted yet: the payment is still pending (Google Play), or in billing retry (App Store). */
  pending: boolean;
  subscription: Subscription;
}

/** The member's side of billing, in both stores: products, verify, subscription, cancel, resume, restore. */
export class BillingService {
  constructor(private readonly deps: BillingServiceDeps) {}

  products(): Product[] {
    return this.deps.catalog.products.map(({ id, period, price, currency, storeIds }) => ({
      id,
      period,
      price,
      currency,
      storeProductIds: { googlePlay: storeIds.GOOGLE_PLAY, appStore: storeIds.APP_STORE },
    }));
  }

  async subscription(memberId: number): Promise<Subscription> {
    const subscription = await readSubscription(this.deps.db, memberId, this.deps.clock.now(), this.manageUrls());
    if (!subscription) throw new NotFoundError('member');
    return subscription;
  }

  /** Verifies a Google Play purchase with the store and applies it once (see `MembershipSync.claim`). */
  async verify(memberId: number, request: VerifyPurchaseRequest): Promise<VerifyResult> {
    const { packageName } = this.deps;
    if (request.packageName !== undefined && packageName !== null && request.packageName !== packageName) {
      throw problemFor(new PurchaseNotFoundError());
    }
    const result = await asProblems(() =>
      this.deps.sync.claim(memberId, {
        productId: request.productId,
        purchaseToken: request.purchaseToken,
        orderId: request.orderId,
      }),
    );
    await this.followSessions(result);
    return { pending: result.purchase?.state === 'PENDING', subscription: await this.subscription(memberId) };
  }

  /** The member's appAccountToken for App Store purchases (decision BL23). */
  async appAccountToken(memberId: number): Promise<AppAccountToken> {
    if (!this.deps.appStore.configured) throw problemFor(new StoreNotConfiguredError());
    const appAccountToken = await appAccountTokenOf(this.deps.db, memberId);
    if (!appAccountToken) throw new NotFoundError('member');
    return { appAccountToken };
  }

  /** Verifies a StoreKit 2 purchase and applies it once per original transaction (see `AppStoreSync.claim`). */
  async verifyAppStore(memberId: number, request: AppStoreVerifyRequest): Promise<VerifyResult> {
    const { signedTransaction, transactionId } = request;
    if ((signedTransaction === undefined) === (transactionId === undefined)) {
      throw new ValidationFailedError([
        { path: 'signedTransaction', message: 'send either signedTransaction or transactionId, not both' },
      ]);
    }
    const result = await asProblems(() =>
      this.deps.appStore.claim(
        memberId,
        signedTransaction !== undefined ? { signedTransaction } : { transactionId: transactionId! },
      ),
    );
    await this.followSessions(result);
    const pending = result.purchase?.state === 'ON_HOLD' || result.purchase?.state === 'PENDING';
    return { pending, subscription: await this.subscription(memberId) };
  }

  /**
   * Stops auto-renewal in every store it can (PREMIUM stays until the expiry); an App Store subscription still
   * renewing is the member's to stop in the App Store (decision BL27).
   */
  async cancel(memberId: number): Promise<{ done: Subscription } | { inStore: StoreAction }> {
    const inStore = await asProblems(() => this.deps.sync.cancel(memberId));
    const subscription = await this.subscription(memberId);
    const [first] = inStore;
    if (!first) return { done: subscription };
    return { inStore: this.storeAction('CANCEL_IN_STORE', first, subscription) };
  }

  /**
   * Test-mode purchases turn auto-renewing again here. A store purchase cannot be resumed by the server
   * (neither store has a call for it): the member is sent to its store's management page.
   */
  async resume(memberId: number): Promise<{ done: Subscription } | { inStore: StoreAction }> {
    const storePurchase = await asProblems(() => this.deps.sync.resume(memberId));
    const subscription = await this.subscription(memberId);
    if (!storePurchase) return { done: subscription };
    return { inStore: this.storeAction('RESUME_IN_STORE', storePurchase, subscription) };
  }

  /** Re-verifies the latest purchase in each store with that store (device change, reinstall). */
  async restore(memberId: number): Promise<Subscription> {
    try {
      await this.followSessions(await asProblems(() => this.deps.sync.restore(memberId)));
    } catch (error) {
      if (error instanceof AppError && error.code === 'NO_SUBSCRIPTION') {
        throw new AppError('NO_PURCHASE', 'There is no purchase to restore from.');
      }
      throw error;
    }
    return this.subscription(memberId);
  }

  private storeAction(reason: StoreAction['reason'], purchase: IapPurchase, subscription: Subscription): StoreAction {
    const store: Store = purchase.store;
    return { action: 'MANAGE_IN_STORE', reason, store, manageUrl: this.manageUrls()(purchase)!, subscription };
  }

  /** The page where a purchase is managed: Google Play's (with its product and package) or the App Store's. */
  private manageUrls(): ManageUrlOf {
    return (purchase) => {
      if (purchase.test) return null;
      if (purchase.store === 'APP_STORE') return this.deps.manageUrls.APP_STORE;
      const url = new URL(this.deps.manageUrls.GOOGLE_PLAY);
      url.searchParams.set(
        'sku',
        this.deps.catalog.find(purchase.productId)?.storeIds.GOOGLE_PLAY ?? purchase.productId,
      );
      if (this.deps.packageName) url.searchParams.set('package', this.deps.packageName);
      return url.toString();
    };
  }

  /** The sync already queued the invalidations; dropping the cached copies here makes them immediate. */
  private async followSessions(result: SyncResult): Promise<void> {
    await this.deps.sessions.forgetCached(result.settlement.tokenHashes);
  }
}
