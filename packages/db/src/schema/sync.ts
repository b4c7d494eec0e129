import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, smallint, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, instant } from './_common';
import { member } from './members';

/**
 * Delta sync: the latest change of every ledger row of a member (a tombstone once deleted), with the
 * member's change sequence number. Written by database triggers on every ledger table (custom migration),
 * so no write path can forget it; the api reads `seq > cursor`.
 */
export const ledgerChange = pgTable(
  'ledger_change',
  {
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    /** `entry`, `wallet`, `category`, `tag`, `recurring`, `quick_entry`, `budget`, `budget_onetime`, `budget_income`. */
    entity: text('entity').notNull(),
    entityId: integer('entity_id').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    deleted: boolean('deleted').notNull(),
    /** When this change was logged: tombstones older than the retention are pruned (sync-tombstone clean-up). */
    changedAt: instant('changed_at').notNull().defaultNow(),
    /**
     * A live entry's answer (the contract's `Entry`) as JSON text, written by the same trigger that logs the
     * change (`nestegg_entry_json`, decision L36); the feed sends it as it is. Null for other kinds and tombstones.
     */
    recordJson: text('record_json'),
  },
  (t) => [
    primaryKey({ name: 'ledger_change_pk', columns: [t.memberId, t.entity, t.entityId] }),
    index('ledger_change_member_seq_idx').on(t.memberId, t.seq),
    // Not led by member_id, on purpose: the tombstone sweep reads all members oldest first. A plain index needs
    // no distribution column (Citus keeps it per shard); the scale-out test lists it as an exemption.
    index('ledger_change_tombstone_changed_idx').on(t.changedAt).where(sql`${t.deleted}`),
  ],
);

/**
 * The member's last change sequence number. Incremented inside the writing transaction, whose row lock
 * makes sequence order equal commit order: a reader at cursor N can never miss a change below N.
 */
export const memberChangeCounter = pgTable('member_change_counter', {
  memberId: integer('member_id')
    .primaryKey()
    .references(() => member.id, { onDelete: 'cascade' }),
  seq: bigint('seq', { mode: 'number' }).notNull(),
  /** Tombstones up to this number have been pruned: a sync cursor below it must start over (RESYNC_REQUIRED). */
  prunedSeq: bigint('pruned_seq', { mode: 'number' }).notNull().default(0),
});

/**
 * Idempotent creation: a request's `Idempotency-Key` per member and route, with the answer given, kept
 * at least 24 hours. `request_hash` tells a retry from a different request reusing the key.
 */
export const idempotencyKey = pgTable(
  'idempotency_key',
  {
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    route: text('route').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    /** Null while the first request is still running. */
    status: smallint('status'),
    response: jsonb('response'),
    /** When the claim was made, or taken over. */
    createdAt: createdAt(),
    completedAt: instant('completed_at'),
    /** The current claim (a new one on takeover): only its holder may commit writes, complete or release. */
    claimId: uuid('claim_id'),
    /** Set by the claim holder's first committed write, in the same transaction: the key is then never re-run. */
    committedAt: instant('committed_at'),
  },
  (t) => [
    primaryKey({ name: 'idempotency_key_pk', columns: [t.memberId, t.route, t.key] }),
    // The expiry sweep's index across all members (an exemption of the scale-out test, as above).
    index('idempotency_key_created_idx').on(t.createdAt),
  ],
);

export type LedgerChange = typeof ledgerChange.$inferSelect;
export type IdempotencyKey = typeof idempotencyKey.$inferSelect;
