import type { Product, StoreAction, Subscription, VerifyPurchaseRequest } from '@nestegg/contract';
import type { Database } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { type MembershipSync, type ProductCatalog, PurchaseNotFoundError, type SyncResult } from '@nestegg/membership';
import { AppError, NotFoundError } from '../../../lib/errors.js';
import type { SessionStore } from '../../members/auth/index.js';
import { asProblems, problemFor } from './problems.js';
import { readSubscription } from './subscription.view.js';

export interface BillingServiceDeps {
  db: Database;
  sync: MembershipSync;
  sessions: SessionStore;
  catalog: ProductCatalog;
  clock: Clock;
  /** The store's subscription management page (`STORE_MANAGE_URL`). */
  manageUrl: string;
  /** The app's package in the store; null when the store is not configured. */
  packageName: string | null;
}

export interface VerifyResult {
  /** The payment is still pending: nothing is granted yet. */
  pending: boolean;
  subscription: Subscription;
}

/** The member's side of billing: products, verify, subscription, cancel, resume, restore. */
export class BillingService {
  constructor(private readonly deps: BillingServiceDeps) {}

  products(): Product[] {
    return this.deps.catalog.products.map(({ id, period, price, currency }) => ({ id, period, price, currency }));
  }

  async subscription(memberId: number): Promise<Subscription> {
    const subscription = await readSubscription(this.deps.db, memberId, this.deps.clock.now());
    if (!subscription) throw new NotFoundError('member');
    return subscription;
  }

  /** Verifies a purchase with the store and applies it once (see `MembershipSync.claim`). */
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

  /** Stops auto-renewal; PREMIUM stays until the expiry. */
  async cancel(memberId: number): Promise<Subscription> {
    await asProblems(() => this.deps.sync.cancel(memberId));
    return this.subscription(memberId);
  }

  /**
   * Test-mode purchases turn auto-renewing again here. A store purchase cannot be resumed by the server
   * (the store has no call for it): the member is sent to the store's management page.
   */
  async resume(memberId: number): Promise<{ done: Subscription } | { inStore: StoreAction }> {
    const storePurchase = await asProblems(() => this.deps.sync.resume(memberId));
    const subscription = await this.subscription(memberId);
    if (!storePurchase) return { done: subscription };
    const manageUrl = new URL(this.deps.manageUrl);
    manageUrl.searchParams.set('sku', storePurchase.productId);
    if (this.deps.packageName) manageUrl.searchParams.set('package', this.deps.packageName);
    return {
      inStore: { action: 'MANAGE_IN_STORE', reason: 'RESUME_IN_STORE', manageUrl: manageUrl.toString(), subscription },
    };
  }

  /** Re-verifies the latest purchase with the store (device change, reinstall). */
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

  /** The sync already queued the invalidations; dropping the cached copies here makes them immediate. */
  private async followSessions(result: SyncResult): Promise<void> {
    await this.deps.sessions.forgetCached(result.settlement.tokenHashes);
  }
}
