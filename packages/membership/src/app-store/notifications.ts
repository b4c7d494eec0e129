/**
 * What the inbox keeps of an App Store Server Notification V2 (decision BL26): its store, its notificationUUID
 * (the message id), its type and subtype, the original transaction it is about, and an error when it must not
 * be applied (a sandbox notification where sandbox purchases grant nothing).
 */
import type { ReadNotification } from '../google-play/notifications.js';
import { AUTO_RENEWABLE } from './facts.js';
import type { VerifiedNotification } from './gateway.js';

/** The notification types this code knows; others are kept, logged, and applied from the store's truth. */
export const APP_STORE_NOTIFICATION_TYPES: readonly string[] = [
  'SUBSCRIBED',
  'DID_RENEW',
  'DID_FAIL_TO_RENEW',
  'GRACE_PERIOD_EXPIRED',
  'EXPIRED',
  'DID_CHANGE_RENEWAL_STATUS',
  'DID_CHANGE_RENEWAL_PREF',
  'OFFER_REDEEMED',
  'PRICE_INCREASE',
  'REFUND',
  'REFUND_DECLINED',
  'REFUND_REVERSED',
  'REVOKE',
  'RENEWAL_EXTENDED',
  'RENEWAL_EXTENSION',
  'CONSUMPTION_REQUEST',
  'TEST',
];

export interface ReadAppStoreNotification extends ReadNotification {
  /** `notificationUUID`: the inbox's message id for the App Store. */
  messageId: string;
  /** `notificationType`, with `:subtype` when there is one. */
  event: string;
  environment: VerifiedNotification['environment'];
}

/** Reads a verified notification for the inbox; never throws. */
export function readAppStoreNotification(verified: VerifiedNotification, grants: boolean): ReadAppStoreNotification {
  const { payload, transaction } = verified;
  const type = payload.notificationType ?? 'UNKNOWN';
  const event = payload.subtype ? `${type}:${payload.subtype}` : type;
  const kind =
    type === 'TEST'
      ? 'TEST'
      : !transaction || transaction.type === AUTO_RENEWABLE
        ? 'SUBSCRIPTION'
        : 'ONE_TIME_PRODUCT';
  return {
    messageId: payload.notificationUUID ?? `${type}:${payload.signedDate ?? ''}`,
    event: event.slice(0, 200),
    environment: verified.environment,
    kind,
    notificationType: null,
    purchaseToken: transaction?.originalTransactionId ?? null,
    error:
      grants || kind === 'TEST'
        ? null
        : `a ${verified.environment} notification: ${verified.environment} purchases grant nothing here (APPSTORE_SANDBOX_PURCHASES)`,
  };
}
