/**
 * Applying the App Store's truth to our purchases and members, the counterpart of `MembershipSync` for Google
 * Play (decisions BL23–BL27). A subscription is keyed by its original transaction id (stored in
 * `iap_purchase.purchase_token` with `store = APP_STORE`), serialised by its own advisory lock, and always
 * applied from what Get All Subscription Statuses says now (never from a notification's order); members are
 * settled from all their purchases in every store, in the same transaction.
 */
import { type Database, type DbOrTx, type IapPurchase, iapPurchase, member } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { eq } from 'drizzle-orm';
import {
  AppAccountTokenMismatchError,
  PurchaseNotFoundError,
  PurchaseOwnedElsewhereError,
  SandboxNotAllowedError,
  StoreNotConfiguredError,
  UnknownProductError,
} from '../errors.js';
import type { MembershipLogger } from '../logger.js';
import { lockMembers, lockPurchaseToken, purchaseByToken, settleMembers } from '../membership/settle.js';
import { type SyncOutcome, type SyncResult, settleUnmatchedNotifications, upsertPurchase } from '../membership/sync.js';
import type { BillingProduct, ProductCatalog } from '../products.js';
import { type AppStoreFacts, AUTO_RENEWABLE, appStoreFactsOf } from './facts.js';
import type { AppStoreEnvironment, AppStoreGateway, VerifiedTransaction } from './gateway.js';

export interface AppStoreSyncDeps {
  db: Database;
  /** Null when the App Store is not configured. */
  gateway: AppStoreGateway | null;
  catalog: ProductCatalog;
  clock: Clock;
  logger: MembershipLogger;
}

/** What the app sends after a StoreKit 2 purchase: the signed transaction, or its id. */
export type AppStoreClaim = { signedTransaction: string } | { transactionId: string };

const NOTHING_SETTLED = { changes: [], tokenHashes: [] };

/** The member's stable appAccountToken (decision BL23). */
export async function appAccountTokenOf(db: DbOrTx, memberId: number): Promise<string | undefined> {
  const [row] = await db.select({ token: member.appAccountToken }).from(member).where(eq(member.id, memberId));
  return row?.token;
}

async function memberByAppAccountToken(db: DbOrTx, token: string): Promise<number | null> {
  if (!/^[0-9a-f-]{36}$/i.test(token)) return null;
  const [row] = await db.select({ id: member.id }).from(member).where(eq(member.appAccountToken, token.toLowerCase()));
  return row?.id ?? null;
}

export class AppStoreSync {
  constructor(private readonly deps: AppStoreSyncDeps) {}

  get configured(): boolean {
    return this.deps.gateway !== null;
  }

  /**
   * A member presents a StoreKit 2 purchase (verify): the signature is checked to Apple's root, the transaction
   * must carry the member's appAccountToken (unless shared through Family Sharing), and it is applied once per
   * original transaction from the store's current status; another member's → `PurchaseOwnedElsewhereError`.
   */
  async claim(memberId: number, claim: AppStoreClaim): Promise<SyncResult> {
    const gateway = this.requireGateway();
    const verified =
      'signedTransaction' in claim
        ? await gateway.verifyTransaction(claim.signedTransaction)
        : await gateway.transactionInfo(claim.transactionId);
    const { transaction, environment } = verified;
    const product = this.productOf(transaction.productId, transaction.type);
    if (!gateway.grants(environment)) throw new SandboxNotAllowedError();
    await this.checkAccountToken(memberId, verified);
    const originalTransactionId = transaction.originalTransactionId;
    if (!originalTransactionId) throw new PurchaseNotFoundError();
    return this.deps.db.transaction(async (tx) => {
      await lockPurchaseToken(tx, originalTransactionId, 'APP_STORE');
      const existing = await purchaseByToken(tx, originalTransactionId, 'APP_STORE');
      if (existing && existing.memberId !== memberId) throw new PurchaseOwnedElsewhereError();
      const facts =
        environment === 'Xcode'
          ? appStoreFactsOf({ status: null, transaction, renewal: null, environment, now: this.now() })
          : await this.truth(originalTransactionId, environment);
      const result = await this.apply(tx, { existing, claimant: memberId, facts, product });
      await settleUnmatchedNotifications(tx, originalTransactionId, this.now(), 'APP_STORE');
      return result;
    });
  }

  /**
   * Reads the subscription's current status from the App Store and applies it (notifications, expiry, restore,
   * the notification history). The member is the purchase's holder, else the one its appAccountToken names.
   */
  async refresh(
    originalTransactionId: string,
    environment: 'Production' | 'Sandbox' = 'Production',
  ): Promise<SyncResult> {
    const gateway = this.requireGateway();
    return this.deps.db.transaction(async (tx) => {
      await lockPurchaseToken(tx, originalTransactionId, 'APP_STORE');
      const existing = await purchaseByToken(tx, originalTransactionId, 'APP_STORE');
      if (existing?.test) return this.unsettled('APPLIED', existing);
      const where = existing ? (existing.sandbox ? 'Sandbox' : 'Production') : environment;
      let facts: AppStoreFacts;
      try {
        facts = await this.truth(originalTransactionId, where);
      } catch (error) {
        if (!(error instanceof PurchaseNotFoundError)) throw error;
        return existing ? this.expireForgotten(tx, existing) : this.unsettled('UNKNOWN_TO_STORE');
      }
      if (!gateway.grants(facts.environment)) {
        return existing ? this.stopRenewing(tx, existing) : this.unsettled('SANDBOX_NOT_ALLOWED');
      }
      const product =
        this.deps.catalog.findInStore('APP_STORE', facts.storeProductId) ??
        (existing ? this.deps.catalog.find(existing.productId) : undefined);
      if (!product) return this.unsettled('NOT_A_PREMIUM_PRODUCT');
      return this.apply(tx, { existing, claimant: null, facts, product });
    });
  }

  // -------------------------------------------------------------------------

  private now(): Date {
    return this.deps.clock.now();
  }

  private requireGateway(): AppStoreGateway {
    if (!this.deps.gateway) throw new StoreNotConfiguredError();
    return this.deps.gateway;
  }

  private unsettled(outcome: SyncOutcome, purchase: IapPurchase | null = null): SyncResult {
    return { outcome, memberId: purchase?.memberId ?? null, purchase, settlement: NOTHING_SETTLED };
  }

  private productOf(storeProductId: string | undefined, type: string | undefined): BillingProduct {
    const product = storeProductId ? this.deps.catalog.findInStore('APP_STORE', storeProductId) : undefined;
    if (!product || type !== AUTO_RENEWABLE) throw new UnknownProductError(storeProductId ?? '');
    return product;
  }

  /** The transaction must name this member (a transaction cannot be replayed by another member), decision BL23. */
  private async checkAccountToken(memberId: number, { transaction }: VerifiedTransaction): Promise<void> {
    if (transaction.inAppOwnershipType === 'FAMILY_SHARED') return;
    const token = transaction.appAccountToken?.toLowerCase();
    if (!token) throw new AppAccountTokenMismatchError();
    if (token === (await appAccountTokenOf(this.deps.db, memberId))) return;
    const owner = await memberByAppAccountToken(this.deps.db, token);
    throw owner === null ? new AppAccountTokenMismatchError() : new PurchaseOwnedElsewhereError();
  }

  private async truth(originalTransactionId: string, environment: AppStoreEnvironment): Promise<AppStoreFacts> {
    if (environment === 'Xcode') throw new PurchaseNotFoundError();
    const status = await this.requireGateway().subscriptionStatus(originalTransactionId, environment);
    return appStoreFactsOf({ ...status, now: this.now() });
  }

  /** Writes the store's truth into the purchase row and settles its member (from every store's purchases). */
  private async apply(
    tx: DbOrTx,
    input: {
      existing: IapPurchase | undefined;
      claimant: number | null;
      facts: AppStoreFacts;
      product: BillingProduct;
    },
  ): Promise<SyncResult> {
    const { existing, facts, product } = input;
    const ownerId =
      existing?.memberId ??
      input.claimant ??
      (facts.appAccountToken && !facts.familyShared ? await memberByAppAccountToken(tx, facts.appAccountToken) : null);
    if (ownerId === null) return this.unsettled('UNMATCHED');
    const locked = await lockMembers(tx, [ownerId]);
    if (!locked.includes(ownerId)) return this.unsettled('UNMATCHED');
    const now = this.now();
    const purchase = await upsertPurchase(tx, {
      memberId: ownerId,
      store: 'APP_STORE',
      purchaseToken: facts.originalTransactionId,
      productId: product.id,
      orderId: facts.orderId,
      expiresAt: facts.expiresAt,
      state: facts.state,
      autoRenew: facts.autoRenew,
      // The App Store decides: a refund reversed clears it again (decision BL26).
      voidedAt: facts.revokedAt,
      // Nothing to acknowledge in the App Store: the server's record is the acknowledgement.
      acknowledgedAt: existing?.acknowledgedAt ?? now,
      test: facts.environment === 'Xcode',
      sandbox: facts.environment === 'Sandbox',
      raw: { ...facts.raw, environment: facts.environment, nextStoreProductId: facts.nextStoreProductId },
      checkedAt: now,
    });
    const settlement = await settleMembers(tx, locked, now);
    return { outcome: 'APPLIED', memberId: ownerId, purchase, settlement };
  }

  /** The App Store no longer knows a subscription we hold: it grants nothing. */
  /**
   * A purchase granted before its environment was turned off (sandbox purchases, BL25): its renewals are not
   * applied, so it ends at the expiry it has, and the member's plan follows now, not never.
   */
  private async stopRenewing(tx: DbOrTx, existing: IapPurchase): Promise<SyncResult> {
    const owners = await lockMembers(tx, [existing.memberId]);
    const now = this.now();
    await tx.update(iapPurchase).set({ autoRenew: false, checkedAt: now }).where(eq(iapPurchase.id, existing.id));
    const settlement = await settleMembers(tx, owners, now);
    return { outcome: 'SANDBOX_NOT_ALLOWED', memberId: existing.memberId, purchase: existing, settlement };
  }

  private async expireForgotten(tx: DbOrTx, existing: IapPurchase): Promise<SyncResult> {
    const owners = await lockMembers(tx, [existing.memberId]);
    const now = this.now();
    await tx
      .update(iapPurchase)
      .set({ state: existing.state === 'REVOKED' ? 'REVOKED' : 'EXPIRED', autoRenew: false, checkedAt: now })
      .where(eq(iapPurchase.id, existing.id));
    const settlement = await settleMembers(tx, owners, now);
    return { outcome: 'APPLIED', memberId: existing.memberId, purchase: existing, settlement };
  }
}
