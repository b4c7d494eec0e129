/**
 * Applying the store's truth to our purchases and members. Every path (the api's verify, cancel, resume
 * and restore; the worker's notifications, expiry, voided purchases and retries) goes through here:
 * per token serialised by an advisory lock, the store asked inside that lock (so the last state asked is
 * the last applied, whatever order notifications arrive in), members locked in id order, the plan settled
 * from the purchases and the sessions updated in the same transaction.
 */
import {
  type Database,
  type DbOrTx,
  type IapPurchase,
  iapPurchase,
  type NewIapPurchase,
  type PurchaseStore,
  storeCancellation,
  storeNotification,
} from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { AppStoreSync } from '../app-store/sync.js';
import {
  NoSubscriptionError,
  ProductMismatchError,
  PurchaseNotFoundError,
  PurchaseOwnedElsewhereError,
  StoreNotConfiguredError,
  StoreUnavailableError,
  UnknownProductError,
} from '../errors.js';
import type { StoreApi } from '../google-play/client.js';
import type { SubscriptionPurchaseV2 } from '../google-play/types.js';
import type { MembershipLogger } from '../logger.js';
import { addPeriods, type ProductCatalog } from '../products.js';
import { lockMembers, lockPurchaseToken, purchaseByToken, type Settlement, settleMembers } from './settle.js';
import { ENTITLING_STATES, entitlingPurchase, factsOf, grantsPremium, type StorePurchaseFacts } from './states.js';

export const TEST_TOKEN_PREFIX = 'test-';

export interface MembershipSyncDeps {
  db: Database;
  /** Null when the store is not configured (only test-mode purchases can then be applied). */
  store: StoreApi | null;
  catalog: ProductCatalog;
  clock: Clock;
  logger: MembershipLogger;
  testMode: boolean;
  /** The App Store's side (decision BL23): member-level operations (cancel, resume, restore) reach it. */
  appStore?: AppStoreSync | null;
}

/**
 * `APPLIED`: the purchase and its member follow the store. `UNMATCHED`: no member holds the purchase (nor
 * the one it replaced). `NOT_A_PREMIUM_PRODUCT`: the store's product is not one we sell. `UNKNOWN_TO_STORE`:
 * the store does not know the token and neither do we. `SANDBOX_NOT_ALLOWED`: an App Store sandbox purchase
 * where sandbox purchases grant nothing (decision BL25).
 */
export type SyncOutcome =
  | 'APPLIED'
  | 'UNMATCHED'
  | 'NOT_A_PREMIUM_PRODUCT'
  | 'UNKNOWN_TO_STORE'
  | 'SANDBOX_NOT_ALLOWED';

export interface SyncResult {
  outcome: SyncOutcome;
  memberId: number | null;
  purchase: IapPurchase | null;
  settlement: Settlement;
}

export type RevokeOutcome = 'REVOKED' | 'ALREADY_REVOKED' | 'UNMATCHED' | 'MEMBER_WITHDRAWN';

export interface ClaimRequest {
  productId: string;
  purchaseToken: string;
  orderId?: string | undefined;
}

const NOTHING_SETTLED: Settlement = { changes: [], tokenHashes: [] };

export class MembershipSync {
  constructor(private readonly deps: MembershipSyncDeps) {}

  /** Whether a token is a test-mode token this process accepts without the store. */
  isTestToken(purchaseToken: string): boolean {
    return this.deps.testMode && purchaseToken.startsWith(TEST_TOKEN_PREFIX);
  }

  /**
   * A member presents a purchase (verify): applied once; the same token again refreshes it for its owner,
   * another member gets `PurchaseOwnedElsewhereError`. A pending purchase is recorded and grants nothing.
   */
  async claim(memberId: number, request: ClaimRequest): Promise<SyncResult> {
    const product = this.deps.catalog.findNamed('GOOGLE_PLAY', request.productId);
    if (!product) throw new UnknownProductError(request.productId);
    if (this.isTestToken(request.purchaseToken)) {
      return this.claimTestPurchase(memberId, { ...request, productId: product.id });
    }
    const store = this.requireStore();
    return this.deps.db.transaction(async (tx) => {
      await lockPurchaseToken(tx, request.purchaseToken);
      const existing = await purchaseByToken(tx, request.purchaseToken);
      if (existing && existing.memberId !== memberId) throw new PurchaseOwnedElsewhereError();
      const answer = await store.getSubscription(request.purchaseToken);
      const facts = factsOf(answer);
      if (facts.productId !== product.storeIds.GOOGLE_PLAY) throw new ProductMismatchError();
      const result = await this.apply(tx, {
        token: request.purchaseToken,
        existing,
        claimant: memberId,
        answer,
        facts,
      });
      await settleUnmatchedNotifications(tx, request.purchaseToken, this.now());
      return result;
    });
  }

  /**
   * Reads the purchase's current state from the store and applies it (notifications, expiry, restore).
   * The member is found by the token, else through the purchase it replaced (marked superseded).
   */
  async refresh(purchaseToken: string): Promise<SyncResult> {
    const store = this.requireStore();
    return this.deps.db.transaction(async (tx) => {
      await lockPurchaseToken(tx, purchaseToken);
      const existing = await purchaseByToken(tx, purchaseToken);
      let answer: SubscriptionPurchaseV2;
      try {
        answer = await store.getSubscription(purchaseToken);
      } catch (error) {
        if (!(error instanceof PurchaseNotFoundError)) throw error;
        return existing ? this.expireForgotten(tx, existing) : this.unsettled('UNKNOWN_TO_STORE');
      }
      const facts = factsOf(answer);
      if (!existing && (!facts.productId || !this.deps.catalog.findInStore('GOOGLE_PLAY', facts.productId))) {
        return this.unsettled('NOT_A_PREMIUM_PRODUCT');
      }
      return this.apply(tx, { token: purchaseToken, existing, claimant: null, answer, facts });
    });
  }

  /** The store voided the purchase (refund, chargeback): revoked at once. */
  async revoke(purchaseToken: string, voidedAt: Date): Promise<RevokeOutcome> {
    return this.deps.db.transaction(async (tx) => {
      await lockPurchaseToken(tx, purchaseToken);
      const existing = await purchaseByToken(tx, purchaseToken);
      if (!existing) return (await isWithdrawn(tx, purchaseToken)) ? 'MEMBER_WITHDRAWN' : 'UNMATCHED';
      if (existing.voidedAt) return 'ALREADY_REVOKED';
      const [owner] = await lockMembers(tx, [existing.memberId]);
      if (owner === undefined) return 'MEMBER_WITHDRAWN';
      await tx
        .update(iapPurchase)
        .set({ state: 'REVOKED', voidedAt, autoRenew: false })
        .where(eq(iapPurchase.id, existing.id));
      await settleMembers(tx, [owner], this.now());
      return 'REVOKED';
    });
  }

  /**
   * Stops auto-renewal of every subscription that grants PREMIUM and renews, in whichever store (decision BL27):
   * a Google Play purchase through the store, a test purchase in its row. The App Store has no call for it:
   * its purchases come back, so the caller can send the member to the App Store.
   */
  async cancel(memberId: number): Promise<IapPurchase[]> {
    const now = this.now();
    const entitling = (await this.livePurchases(memberId)).filter((purchase) => grantsPremium(purchase, now));
    if (entitling.length === 0) throw new NoSubscriptionError();
    const inStore: IapPurchase[] = [];
    for (const purchase of entitling.filter((candidate) => candidate.autoRenew)) {
      if (purchase.test) {
        await this.setTestAutoRenew(purchase, false);
      } else if (purchase.store === 'APP_STORE') {
        inStore.push(purchase);
      } else {
        await this.requireStore().cancel(purchase.purchaseToken, 'USER_REQUESTED_STOP_RENEWALS');
        await this.refresh(purchase.purchaseToken);
      }
    }
    return inStore;
  }

  /**
   * Turns auto-renewal back on for a test-mode purchase. A real purchase cannot be resumed by us (neither store
   * has such a call): returns it, so the caller can send the member to its store.
   */
  async resume(memberId: number): Promise<IapPurchase | null> {
    const current = await this.currentPurchase(memberId);
    if (!current) throw new NoSubscriptionError();
    if (current.autoRenew) return null;
    if (!current.test) return current;
    await this.setTestAutoRenew(current, true);
    return null;
  }

  /**
   * Re-verifies the member's latest purchase in each store with that store (device change, reinstall); test
   * purchases are settled from their rows.
   */
  async restore(memberId: number): Promise<SyncResult> {
    const live = await this.livePurchases(memberId);
    if (live.length === 0) throw new NoSubscriptionError('There is no purchase to restore.');
    const newest = new Map<string, IapPurchase>();
    for (const purchase of live) if (!newest.has(purchase.store)) newest.set(purchase.store, purchase);
    const tokenHashes: string[] = [];
    let last: SyncResult | undefined;
    for (const purchase of newest.values()) {
      if (purchase.test) last = await this.settleOnly(memberId);
      else if (purchase.store === 'APP_STORE') last = await this.requireAppStore().refresh(purchase.purchaseToken);
      else last = await this.refresh(purchase.purchaseToken);
      tokenHashes.push(...last.settlement.tokenHashes);
    }
    return { ...last!, settlement: { changes: last!.settlement.changes, tokenHashes } };
  }

  /** Settles a member from the purchases as stored (no store call): test purchases, expiry without auto-renew. */
  async settleOnly(...memberIds: number[]): Promise<SyncResult> {
    const settlement = await this.deps.db.transaction(async (tx) =>
      settleMembers(tx, await lockMembers(tx, memberIds), this.now()),
    );
    return { outcome: 'APPLIED', memberId: memberIds[0] ?? null, purchase: null, settlement };
  }

  /**
   * Test mode's stand-in for the store's renewal at expiry: an auto-renewing test purchase moves on by
   * whole periods until it is current again. Without test mode, test purchases just expire.
   */
  async renewTestPurchase(purchaseToken: string, store: PurchaseStore = 'GOOGLE_PLAY'): Promise<SyncResult> {
    return this.deps.db.transaction(async (tx) => {
      await lockPurchaseToken(tx, purchaseToken, store);
      const existing = await purchaseByToken(tx, purchaseToken, store);
      if (!existing) return this.unsettled('UNMATCHED');
      const owners = await lockMembers(tx, [existing.memberId]);
      const product = this.deps.catalog.find(existing.productId);
      const now = this.now();
      if (this.deps.testMode && existing.autoRenew && product && existing.expiresAt) {
        let expiresAt = existing.expiresAt;
        for (let periods = 1; expiresAt <= now; periods += 1)
          expiresAt = addPeriods(existing.expiresAt, product.period, periods);
        await tx.update(iapPurchase).set({ expiresAt, state: 'ACTIVE' }).where(eq(iapPurchase.id, existing.id));
      }
      const settlement = await settleMembers(tx, owners, now);
      return { outcome: 'APPLIED', memberId: existing.memberId, purchase: existing, settlement };
    });
  }

  /** Acknowledges a purchase the store has not had acknowledged yet (the worker retries until it holds). */
  async acknowledge(purchaseToken: string): Promise<boolean> {
    const store = this.requireStore();
    return this.deps.db.transaction(async (tx) => {
      await lockPurchaseToken(tx, purchaseToken);
      const existing = await purchaseByToken(tx, purchaseToken);
      if (!existing || existing.acknowledgedAt || existing.test) return false;
      await store.acknowledge(
        this.deps.catalog.find(existing.productId)?.storeIds.GOOGLE_PLAY ?? existing.productId,
        purchaseToken,
      );
      await tx.update(iapPurchase).set({ acknowledgedAt: this.now() }).where(eq(iapPurchase.id, existing.id));
      return true;
    });
  }

  /** The member's purchase that grants PREMIUM now (the longest), in any store. */
  async currentPurchase(memberId: number): Promise<IapPurchase | undefined> {
    return entitlingPurchase(await this.livePurchases(memberId), this.now());
  }

  /** The member's purchases in every store that are neither superseded nor voided, newest first. */
  private async livePurchases(memberId: number): Promise<IapPurchase[]> {
    return this.deps.db
      .select()
      .from(iapPurchase)
      .where(and(eq(iapPurchase.memberId, memberId), isNull(iapPurchase.supersededAt), isNull(iapPurchase.voidedAt)))
      .orderBy(desc(iapPurchase.createdAt), desc(iapPurchase.id));
  }

  private requireAppStore(): AppStoreSync {
    if (!this.deps.appStore?.configured) throw new StoreNotConfiguredError();
    return this.deps.appStore;
  }

  // -------------------------------------------------------------------------

  private now(): Date {
    return this.deps.clock.now();
  }

  private requireStore(): StoreApi {
    if (!this.deps.store) throw new StoreNotConfiguredError();
    return this.deps.store;
  }

  private unsettled(outcome: SyncOutcome): SyncResult {
    return { outcome, memberId: null, purchase: null, settlement: NOTHING_SETTLED };
  }

  /** Writes the store's answer into the purchase row, supersedes the purchase it replaced, settles both members. */
  private async apply(
    tx: DbOrTx,
    input: {
      token: string;
      existing: IapPurchase | undefined;
      claimant: number | null;
      answer: SubscriptionPurchaseV2;
      facts: StorePurchaseFacts;
    },
  ): Promise<SyncResult> {
    const { token, existing, facts } = input;
    if (facts.state === null) throw new StoreUnavailableError('the store left the subscription state unspecified');
    const replaced = facts.linkedPurchaseToken ? await purchaseByToken(tx, facts.linkedPurchaseToken) : undefined;
    const ownerId = existing?.memberId ?? input.claimant ?? replaced?.memberId ?? null;
    if (ownerId === null) return this.unsettled('UNMATCHED');
    const locked = await lockMembers(tx, [ownerId, replaced?.memberId]);
    if (!locked.includes(ownerId)) return this.unsettled('UNMATCHED');
    const now = this.now();
    const acknowledgedAt = await this.acknowledgeIfDue(token, existing, facts, now);
    const purchase = await upsertPurchase(tx, {
      memberId: ownerId,
      purchaseToken: token,
      productId:
        (facts.productId ? this.deps.catalog.findInStore('GOOGLE_PLAY', facts.productId)?.id : undefined) ??
        existing?.productId ??
        facts.productId ??
        'unknown',
      orderId: facts.orderId ?? existing?.orderId ?? null,
      expiresAt: facts.expiresAt,
      state: facts.state,
      autoRenew: facts.autoRenew,
      linkedPurchaseToken: facts.linkedPurchaseToken,
      acknowledgedAt,
      raw: input.answer,
      checkedAt: now,
    });
    if (replaced && replaced.supersededAt === null && replaced.id !== purchase.id) {
      await tx.update(iapPurchase).set({ supersededAt: now }).where(eq(iapPurchase.id, replaced.id));
    }
    const settlement = await settleMembers(tx, locked, now);
    return { outcome: 'APPLIED', memberId: ownerId, purchase, settlement };
  }

  /**
   * Acknowledges a granted purchase the store still lists as unacknowledged. A failure is logged, not
   * thrown: the grant stands and the worker's retry job acknowledges later (within the store's 3 days).
   */
  private async acknowledgeIfDue(
    token: string,
    existing: IapPurchase | undefined,
    facts: StorePurchaseFacts,
    now: Date,
  ): Promise<Date | null> {
    if (existing?.acknowledgedAt) return existing.acknowledgedAt;
    if (facts.acknowledged) return now;
    if (!facts.productId || !facts.state || !ENTITLING_STATES.includes(facts.state)) return null;
    try {
      await this.requireStore().acknowledge(facts.productId, token);
      return now;
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'store acknowledgement failed; the worker retries it');
      return null;
    }
  }

  /** The store no longer knows a token we hold (60 days after its expiry): it grants nothing. */
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

  private async claimTestPurchase(memberId: number, request: ClaimRequest): Promise<SyncResult> {
    const product = this.deps.catalog.find(request.productId)!;
    return this.deps.db.transaction(async (tx) => {
      await lockPurchaseToken(tx, request.purchaseToken);
      const existing = await purchaseByToken(tx, request.purchaseToken);
      if (existing && existing.memberId !== memberId) throw new PurchaseOwnedElsewhereError();
      const owners = await lockMembers(tx, [memberId]);
      const now = this.now();
      const purchase =
        existing ??
        (await upsertPurchase(tx, {
          memberId,
          purchaseToken: request.purchaseToken,
          productId: product.id,
          orderId: request.orderId ?? null,
          expiresAt: addPeriods(now, product.period),
          state: 'ACTIVE',
          autoRenew: true,
          test: true,
          raw: { testMode: true },
          checkedAt: now,
        }));
      const settlement = await settleMembers(tx, owners, now);
      return { outcome: 'APPLIED', memberId, purchase, settlement };
    });
  }

  private async setTestAutoRenew(purchase: IapPurchase, autoRenew: boolean): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      await lockPurchaseToken(tx, purchase.purchaseToken, purchase.store);
      const existing = await purchaseByToken(tx, purchase.purchaseToken, purchase.store);
      if (!existing) return;
      const owners = await lockMembers(tx, [existing.memberId]);
      await tx
        .update(iapPurchase)
        .set({ autoRenew, state: autoRenew ? 'ACTIVE' : 'CANCELED' })
        .where(eq(iapPurchase.id, existing.id));
      await settleMembers(tx, owners, this.now());
    });
  }
}

/** Inserts or updates a purchase by `(store, purchase_token)`; the owner and the key never change. */
export async function upsertPurchase(tx: DbOrTx, values: NewIapPurchase): Promise<IapPurchase> {
  const { memberId: _owner, purchaseToken: _token, store: _store, ...changes } = values;
  const [row] = await tx
    .insert(iapPurchase)
    .values(values)
    .onConflictDoUpdate({ target: [iapPurchase.store, iapPurchase.purchaseToken], set: changes })
    .returning();
  return row!;
}

/** Notifications parked as unmatched for this purchase are settled: the claim applied the store's current state. */
export async function settleUnmatchedNotifications(
  tx: DbOrTx,
  purchaseToken: string,
  now: Date,
  store: PurchaseStore = 'GOOGLE_PLAY',
): Promise<void> {
  await tx
    .update(storeNotification)
    .set({ status: 'PROCESSED', outcome: 'SETTLED_BY_VERIFY', processedAt: now, error: null })
    .where(
      and(
        eq(storeNotification.store, store),
        eq(storeNotification.purchaseToken, purchaseToken),
        eq(storeNotification.status, 'UNMATCHED'),
      ),
    );
}

async function isWithdrawn(tx: DbOrTx, purchaseToken: string, store: PurchaseStore = 'GOOGLE_PLAY'): Promise<boolean> {
  const rows = await tx
    .select({ token: storeCancellation.purchaseToken })
    .from(storeCancellation)
    .where(and(eq(storeCancellation.store, store), eq(storeCancellation.purchaseToken, purchaseToken)));
  return rows.length > 0;
}

/** Used by the worker: whether a purchase (a Google token, an App Store original transaction) was a withdrawn member's. */
export const belongedToWithdrawnMember = (db: DbOrTx, purchaseToken: string, store: PurchaseStore = 'GOOGLE_PLAY') =>
  isWithdrawn(db, purchaseToken, store);
