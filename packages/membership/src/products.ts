/** The subscription products on sale (from configuration). */
import type { PurchaseStore } from '@nestegg/db';

export type BillingPeriod = 'MONTHLY' | 'YEARLY';

/** The stores a product is sold in (decision BL23). */
export const STORES: readonly PurchaseStore[] = ['GOOGLE_PLAY', 'APP_STORE'];

export interface BillingProduct {
  /** The catalog's id: what `GET /api/billing/products` lists and a member's plan names. */
  id: string;
  period: BillingPeriod;
  /** Whole units of `currency`. */
  price: number;
  currency: string;
  /** The product's id in each store (the catalog id unless `BILLING_PRODUCTS` names another). */
  storeIds: Record<PurchaseStore, string>;
}

/** Adds `count` billing periods to an instant, in UTC calendar months (clamped to the month's last day). */
export function addPeriods(from: Date, period: BillingPeriod, count = 1): Date {
  const months = (period === 'YEARLY' ? 12 : 1) * count;
  const target = new Date(from.getTime());
  const day = target.getUTCDate();
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target;
}

/** The configured products; only these grant PREMIUM, in either store. */
export class ProductCatalog {
  private readonly byId: Map<string, BillingProduct>;
  private readonly byStoreId: Map<string, BillingProduct>;

  constructor(readonly products: readonly BillingProduct[]) {
    this.byId = new Map(products.map((product) => [product.id, product]));
    this.byStoreId = new Map(
      products.flatMap((product) => STORES.map((store) => [`${store}:${product.storeIds[store]}`, product] as const)),
    );
  }

  /** By the catalog's id. */
  find(productId: string): BillingProduct | undefined {
    return this.byId.get(productId);
  }

  /** By the id a store gives the product (its answers and signed transactions name this one). */
  findInStore(store: PurchaseStore, storeProductId: string): BillingProduct | undefined {
    return this.byStoreId.get(`${store}:${storeProductId}`);
  }

  /** By the catalog's id or, failing that, the store's id for it (what an app may send to verify). */
  findNamed(store: PurchaseStore, name: string): BillingProduct | undefined {
    return this.find(name) ?? this.findInStore(store, name);
  }
}
