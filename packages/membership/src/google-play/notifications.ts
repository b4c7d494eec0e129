import type { StoreNotificationKind } from '@nestegg/db';
import { DeveloperNotificationSchema, SUBSCRIPTION_NOTIFICATION_TYPES } from './types.js';

/** What the inbox stores about a push: its kind and token when readable, an error when it must not be processed. */
export interface ReadNotification {
  kind: StoreNotificationKind | null;
  notificationType: number | null;
  purchaseToken: string | null;
  /** Why it is not processed (malformed, another app's package); null for a processable notification. */
  error: string | null;
}

const MAX_DATA_CHARACTERS = 64 * 1024;

function decodeJson(data: string): unknown {
  if (data.length > MAX_DATA_CHARACTERS) return undefined;
  try {
    return JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

const rejected = (error: string): ReadNotification => ({
  kind: null,
  notificationType: null,
  purchaseToken: null,
  error,
});

/**
 * Reads a push's `message.data` (base64 JSON `DeveloperNotification`). Never throws: a notification that
 * cannot be processed comes back with `error` set, so the inbox keeps it and the store is still told 2xx
 * (it would otherwise redeliver it for days).
 */
export function readDeveloperNotification(data: string, packageName: string | null): ReadNotification {
  const parsed = DeveloperNotificationSchema.safeParse(decodeJson(data));
  if (!parsed.success) return rejected('the payload is not a readable DeveloperNotification');
  const notification = parsed.data;
  const read = classify(notification);
  if (!read) return rejected('the payload names no notification');
  if (packageName !== null && notification.packageName !== packageName) {
    return { ...read, error: `the notification is for another package (${notification.packageName.slice(0, 200)})` };
  }
  return read;
}

function classify(notification: ReturnType<typeof DeveloperNotificationSchema.parse>): ReadNotification | null {
  const { subscriptionNotification, voidedPurchaseNotification, oneTimeProductNotification, testNotification } =
    notification;
  if (subscriptionNotification) {
    return {
      kind: 'SUBSCRIPTION',
      notificationType: subscriptionNotification.notificationType,
      purchaseToken: subscriptionNotification.purchaseToken,
      error: null,
    };
  }
  if (voidedPurchaseNotification) {
    return {
      kind: 'VOIDED_PURCHASE',
      notificationType: voidedPurchaseNotification.productType,
      purchaseToken: voidedPurchaseNotification.purchaseToken,
      error: null,
    };
  }
  if (oneTimeProductNotification) {
    return {
      kind: 'ONE_TIME_PRODUCT',
      notificationType: oneTimeProductNotification.notificationType,
      purchaseToken: oneTimeProductNotification.purchaseToken,
      error: null,
    };
  }
  if (testNotification) return { kind: 'TEST', notificationType: null, purchaseToken: null, error: null };
  return null;
}

/** `SUBSCRIPTION_RENEWED` for 2, `TYPE_99` for a type this code does not know yet. */
export const subscriptionNotificationName = (type: number): string =>
  SUBSCRIPTION_NOTIFICATION_TYPES[type] ?? `TYPE_${type}`;

/** The api NOTIFYs here when it stored a processable push; the billing worker LISTENs and dispatches at once. */
export const STORE_INBOX_CHANNEL = 'nestegg_store_inbox';
