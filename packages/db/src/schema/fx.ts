import { char, date, numeric, pgTable, primaryKey } from 'drizzle-orm/pg-core';
import { createdAt } from './_common';

/**
 * Exchange rates as the provider gave them, one per currency pair and day, shared by every api replica:
 * each pair costs the provider at most one call a day.
 */
export const fxRate = pgTable(
  'fx_rate',
  {
    base: char('base', { length: 3 }).notNull(),
    quote: char('quote', { length: 3 }).notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    /** Units of `quote` per one `base`; 12 fractional digits keep small ratios (KRW→USD 0.000731…) exact. */
    rate: numeric('rate', { precision: 24, scale: 12 }).notNull(),
    fetchedAt: createdAt(),
  },
  (t) => [primaryKey({ name: 'fx_rate_pk', columns: [t.base, t.quote, t.day] })],
);

export type FxRate = typeof fxRate.$inferSelect;
