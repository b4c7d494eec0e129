import { customType, pgEnum, timestamp } from 'drizzle-orm/pg-core';

/** Instant column: `timestamptz`, read as a JS `Date`. */
export const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** `created_at timestamptz not null default now()`. */
export const createdAt = () => instant('created_at').notNull().defaultNow();

/** `updated_at timestamptz not null default now()`, bumped by drizzle on every update. */
export const updatedAt = () =>
  instant('updated_at')
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());

/** PostgreSQL `bytea`, read and written as a Node `Buffer` (drizzle has no built-in bytea). */
export const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType() {
    return 'bytea';
  },
  toDriver(value) {
    return value;
  },
  fromDriver(value) {
    return Buffer.isBuffer(value) ? value : Buffer.from(value as Uint8Array);
  },
});

/** Income or expense: entries, categories, default categories, recurring transactions, quick entries. */
export const ledgerType = pgEnum('ledger_type', ['INCOME', 'EXPENSE']);
export type LedgerType = (typeof ledgerType.enumValues)[number];
