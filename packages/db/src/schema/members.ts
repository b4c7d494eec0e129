import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  text,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, instant, updatedAt } from './_common';

export const memberRole = pgEnum('member_role', ['USER', 'ADMIN']);
export const memberStatus = pgEnum('member_status', ['ACTIVE', 'SUSPENDED']);
export const authProvider = pgEnum('auth_provider', ['LOCAL', 'IDPONE', 'IDPTWO']);
export const memberPlan = pgEnum('member_plan', ['FREE', 'PREMIUM']);

export type MemberRole = (typeof memberRole.enumValues)[number];
export type MemberStatus = (typeof memberStatus.enumValues)[number];
export type AuthProvider = (typeof authProvider.enumValues)[number];
export type MemberPlan = (typeof memberPlan.enumValues)[number];

/**
 * A member. `email` is stored lower-cased by the app and is unique case-insensitively;
 * it is nullable because a provider account may come without an e-mail.
 */
export const member = pgTable(
  'member',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    email: text('email'),
    emailVerified: boolean('email_verified').notNull().default(false),
    /** bcrypt hash; null for social accounts that never set a password. */
    passwordHash: text('password_hash'),
    displayName: text('display_name').notNull(),
    role: memberRole('role').notNull().default('USER'),
    status: memberStatus('status').notNull().default('ACTIVE'),
    provider: authProvider('provider').notNull().default('LOCAL'),
    idponeId: text('idpone_id').unique('member_idpone_id_uq'),
    idptwoId: text('idptwo_id').unique('member_idptwo_id_uq'),
    idponePicture: text('idpone_picture'),
    /** User-chosen picture as a data URL. */
    profileImage: text('profile_image'),
    /**
     * md5 of `profile_image`, set by a trigger whenever the picture is written (migration 'board_post_lists'):
     * the version in the picture's public URL, read by lists without loading the picture itself.
     */
    profileImageHash: text('profile_image_hash'),
    plan: memberPlan('plan').notNull().default('FREE'),
    /** Null while PREMIUM means permanent (set by an admin). */
    planExpiresAt: instant('plan_expires_at'),
    planProduct: text('plan_product'),
    planAutoRenew: boolean('plan_auto_renew').notNull().default(false),
    /**
     * The member's stable UUID for the App Store (`appAccountToken`): the app passes it at purchase, Apple signs it
     * into the transaction, and verify accepts a transaction only from the member it names (decision BL23).
     */
    appAccountToken: uuid('app_account_token').notNull().defaultRandom(),
    points: integer('points').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('member_email_lower_uq').on(sql`lower(${t.email})`),
    index('member_plan_expires_at_idx')
      .on(t.planExpiresAt)
      .where(sql`${t.plan} = 'PREMIUM' and ${t.planExpiresAt} is not null`),
    check('member_points_non_negative', sql`${t.points} >= 0`),
    unique('member_app_account_token_uq').on(t.appAccountToken),
  ],
);

/**
 * How many members exist: the admin member list's unfiltered `total` without counting the table. One row,
 * kept by statement-level triggers on `member` (migration 'member_count'); the row lock orders concurrent
 * sign-ups and deletions, so the number is exact at every commit.
 */
export const memberCount = pgTable(
  'member_count',
  {
    single: boolean('single').primaryKey().default(true),
    members: bigint('members', { mode: 'number' }).notNull(),
  },
  (t) => [check('member_count_single_row', sql`${t.single}`)],
);

/** Persistent backup of a session (the fast store is Redis). Only the SHA-256 of the token is stored. */
export const authSession = pgTable(
  'auth_session',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    tokenHash: text('token_hash').notNull().unique('auth_session_token_hash_uq'),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    displayName: text('display_name').notNull(),
    plan: memberPlan('plan').notNull(),
    role: memberRole('role').notNull(),
    rememberMe: boolean('remember_me').notNull().default(false),
    expiresAt: instant('expires_at').notNull(),
    createdAt: createdAt(),
    lastSeenAt: instant('last_seen_at').notNull().defaultNow(),
    /** The client's User-Agent at login (cut to 256 characters), shown in the member's session list. */
    userAgent: text('user_agent'),
    /** Last successful re-authentication (password gate or fresh provider token) in this session. */
    reauthenticatedAt: instant('reauthenticated_at'),
  },
  (t) => [index('auth_session_member_idx').on(t.memberId), index('auth_session_expires_at_idx').on(t.expiresAt)],
);

/**
 * Outbox of session cache invalidations: written in the same transaction as the change to the backup
 * row, deleted once Redis has dropped the cached copy. Whatever Redis did meanwhile (an outage, a failed
 * delete, a crash after commit), the api retries until it holds.
 */
export const sessionCacheInvalidation = pgTable('session_cache_invalidation', {
  tokenHash: text('token_hash').primaryKey(),
  createdAt: createdAt(),
});

export const pointHistory = pgTable(
  'point_history',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    /** Signed change actually applied to the balance. */
    amount: integer('amount').notNull(),
    /** e.g. `POST`, `COMMENT`, `VOTE_RECEIVED`, `MONTH_COMPLETE_202501`. */
    reason: text('reason').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('point_history_member_created_idx').on(t.memberId, t.createdAt),
    index('point_history_member_reason_created_idx').on(t.memberId, t.reason, t.createdAt),
    // Once-only rewards (the month-complete bonus) are once per member and reason, race-free.
    uniqueIndex('point_history_member_once_uq')
      .on(t.memberId, t.reason)
      .where(sql`${t.reason} like 'MONTH_COMPLETE_%'`),
  ],
);

/** Key/value application settings, e.g. `signup_enabled` → `true`. */
export const appSetting = pgTable('app_setting', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: updatedAt(),
});

export type Member = typeof member.$inferSelect;
export type NewMember = typeof member.$inferInsert;
export type AuthSession = typeof authSession.$inferSelect;
export type NewAuthSession = typeof authSession.$inferInsert;
export type PointHistory = typeof pointHistory.$inferSelect;
export type NewPointHistory = typeof pointHistory.$inferInsert;
export type AppSetting = typeof appSetting.$inferSelect;
export type NewAppSetting = typeof appSetting.$inferInsert;
