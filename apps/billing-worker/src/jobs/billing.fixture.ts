/** Shared by the billing job tests: a worker on the fake store, members with sessions, purchases, pushes. */
import {
  authSession,
  type Database,
  iapPurchase,
  member,
  type NewIapPurchase,
  sessionCacheInvalidation,
  storeNotification,
} from '@nestegg/db';
import {
  AppStoreGateway,
  appStoreConfigOf,
  readAppStoreNotification,
  readDeveloperNotification,
  storeInInbox,
} from '@nestegg/membership';
import type { FakeAppStore, FakeGooglePlay } from '@nestegg/membership/testing';
import { databaseUrlsFor } from '@nestegg/testing';
import { eq, inArray } from 'drizzle-orm';
import { pino } from 'pino';
import { loadEnv } from '../env.js';
import { startWorker, type WorkerOptions } from '../worker.js';

/** Both stores: Google Play's ids are the catalog's, the App Store's are named. */
export const PRODUCTS =
  'premium_monthly:MONTHLY:4900:KRW:appstore=app.nestegg.premium.monthly,premium_yearly:YEARLY:49000:KRW:appstore=app.nestegg.premium.yearly';
export const APPLE_MONTHLY = 'app.nestegg.premium.monthly';
export const APPLE_YEARLY = 'app.nestegg.premium.yearly';
export const DAY = 86_400_000;
export const silent = pino({ level: process.env.WORKER_TEST_LOG ?? 'silent' });

export function workerEnv(databaseUrl: string, store: FakeGooglePlay | null, overrides: Record<string, string> = {}) {
  // In the pooled run (`vitest.pooler.config.ts`, decision DB17): the pool through the run's PgBouncer, the job engine
  // and the inbox's LISTEN on the database itself.
  const { databaseUrl: poolUrl, directDatabaseUrl } = databaseUrlsFor(databaseUrl);
  return loadEnv({
    DATABASE_URL: poolUrl,
    ...(directDatabaseUrl ? { DATABASE_DIRECT_URL: directDatabaseUrl, DATABASE_POOLER: 'transaction' } : {}),
    DATABASE_POOL_SIZE: '3',
    JOBS_POOL_SIZE: '3',
    BILLING_PRODUCTS: PRODUCTS,
    ...(store ? store.env() : {}),
    ...overrides,
  });
}

export function startBillingWorker(
  databaseUrl: string,
  store: FakeGooglePlay | null,
  overrides: Record<string, string> = {},
  options: WorkerOptions = {},
) {
  return startWorker(workerEnv(databaseUrl, store, overrides), silent, options);
}

let sequence = 0;

/** A member with one live session (as if logged in through the api). */
export async function memberWithSession(
  db: Database,
  plan: Partial<Pick<typeof member.$inferInsert, 'plan' | 'planExpiresAt' | 'planProduct' | 'planAutoRenew'>> = {},
) {
  sequence += 1;
  const [row] = await db
    .insert(member)
    .values({ email: `billing-${sequence}-${Date.now()}@nestegg.test`, displayName: 'Member', ...plan })
    .returning({ id: member.id });
  const tokenHash = `session-${row!.id}-${sequence}`;
  await db.insert(authSession).values({
    tokenHash,
    memberId: row!.id,
    displayName: 'Member',
    plan: plan.plan ?? 'FREE',
    role: 'USER',
    expiresAt: new Date(Date.now() + DAY),
  });
  return { memberId: row!.id, tokenHash };
}

export async function addPurchase(db: Database, values: NewIapPurchase) {
  const [row] = await db.insert(iapPurchase).values(values).returning();
  return row!;
}

/** The member's plan columns and what their sessions say, plus whether the sessions' caches were invalidated. */
export async function membershipOf(db: Database, who: { memberId: number; tokenHash: string }) {
  const [row] = await db
    .select({
      plan: member.plan,
      planExpiresAt: member.planExpiresAt,
      planProduct: member.planProduct,
      planAutoRenew: member.planAutoRenew,
    })
    .from(member)
    .where(eq(member.id, who.memberId));
  const [session] = await db
    .select({ plan: authSession.plan })
    .from(authSession)
    .where(eq(authSession.tokenHash, who.tokenHash));
  const invalidated = await db
    .select()
    .from(sessionCacheInvalidation)
    .where(inArray(sessionCacheInvalidation.tokenHash, [who.tokenHash]));
  return { ...row!, sessionPlan: session?.plan, sessionInvalidated: invalidated.length > 0 };
}

/** Stores a push the way the api does (and wakes the worker). Returns its message id. */
export async function push(db: Database, store: FakeGooglePlay, notification: object | string): Promise<string> {
  const envelope = store.envelope(notification);
  await storeInInbox(db, {
    messageId: envelope.message.messageId,
    envelope,
    read: readDeveloperNotification(envelope.message.data, store.packageName),
    now: new Date(),
  });
  return envelope.message.messageId;
}

/** The member's appAccountToken (what the iOS app passes at purchase). */
export async function appAccountTokenOf(db: Database, memberId: number): Promise<string> {
  const [row] = await db.select({ token: member.appAccountToken }).from(member).where(eq(member.id, memberId));
  return row!.token;
}

/**
 * Stores an App Store notification the way the api does (verified to the fake's root, then the inbox, which
 * wakes the worker). Returns its notificationUUID.
 */
export async function pushAppStore(db: Database, apple: FakeAppStore, signedPayload: string): Promise<string> {
  const env = loadEnv({
    DATABASE_URL: 'postgres://unused@localhost/unused',
    BILLING_PRODUCTS: PRODUCTS,
    ...apple.env(),
  });
  const gateway = new AppStoreGateway(appStoreConfigOf(env)!, false);
  const verified = await gateway.verifyNotification(signedPayload);
  const read = readAppStoreNotification(verified, gateway.grants(verified.environment));
  await storeInInbox(db, {
    store: 'APP_STORE',
    messageId: read.messageId,
    event: read.event,
    envelope: { signedPayload, environment: read.environment },
    read,
    now: new Date(),
  });
  return read.messageId;
}

export async function inboxRow(db: Database, messageId: string) {
  const [row] = await db.select().from(storeNotification).where(eq(storeNotification.messageId, messageId));
  return row!;
}

/** Waits until the notification left the queue states (processed, unmatched, failed…). */
export async function settledNotification(db: Database, messageId: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await inboxRow(db, messageId);
    if (!['RECEIVED', 'DISPATCHED'].includes(row.status)) return row;
    if (Date.now() > deadline) throw new Error(`notification still ${row.status}: ${row.error ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
