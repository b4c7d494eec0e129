/** The subscription products on sale (from configuration). */
export type BillingPeriod = 'MONTHLY' | 'YEARLY';

export interface BillingProduct {
  /** The store's product (subscription) id. */
  id: string;
  period: BillingPeriod;
  /** Whole units of `currency`. */
  price: number;
  currency: string;
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

/** The configured products; only these grant PREMIUM. */
export class ProductCatalog {
  private readonly byId: Map<string, BillingProduct>;

  constructor(readonly products: readonly BillingProduct[]) {
    this.byId = new Map(products.map((product) => [product.id, product]));
  }

  find(productId: string): BillingProduct | undefined {
    return this.byId.get(productId);
  }
}
