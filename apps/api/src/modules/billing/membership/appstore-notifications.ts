import type { AppStoreNotificationRequest } from '@nestegg/contract';
import type { Database } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import {
  type AppStoreGateway,
  readAppStoreNotification,
  SignatureRejectedError,
  storeInInbox,
} from '@nestegg/membership';
import { currentTraceparent } from '@nestegg/telemetry';
import { AppError, ServiceUnavailableError } from '../../../lib/errors.js';
import { problemFor } from './problems.js';

export interface AppStoreNotificationIntakeDeps {
  db: Database;
  /** Null when the App Store is not configured (the endpoint then answers 503 and Apple retries). */
  gateway: AppStoreGateway | null;
  clock: Clock;
}

/**
 * App Store Server Notifications V2 (decision BL26): the signed payload and the transaction and renewal info
 * inside it are verified to Apple's root, then the notification is stored once per notificationUUID in the
 * inbox the Google notifications use, and the worker applies the store's truth. Nothing else happens on the
 * request, so Apple gets its 200 at once. A signature that does not verify stores nothing (401); a check that
 * could not finish (certificate status, network) is a 503, so Apple sends it again.
 */
export class AppStoreNotificationIntake {
  constructor(private readonly deps: AppStoreNotificationIntakeDeps) {}

  async receive(body: AppStoreNotificationRequest): Promise<void> {
    const { gateway } = this.deps;
    if (!gateway) {
      throw new ServiceUnavailableError('STORE_NOT_CONFIGURED', 'App Store notifications are not configured.');
    }
    let verified: Awaited<ReturnType<AppStoreGateway['verifyNotification']>>;
    try {
      verified = await gateway.verifyNotification(body.signedPayload);
    } catch (error) {
      if (error instanceof SignatureRejectedError) {
        throw new AppError('INVALID_NOTIFICATION_SIGNATURE', error.message);
      }
      throw problemFor(error);
    }
    const read = readAppStoreNotification(verified, gateway.grants(verified.environment));
    await storeInInbox(this.deps.db, {
      store: 'APP_STORE',
      messageId: read.messageId,
      event: read.event,
      envelope: {
        signedPayload: body.signedPayload,
        environment: read.environment,
        notificationType: verified.payload.notificationType,
        subtype: verified.payload.subtype ?? null,
      },
      read,
      now: this.deps.clock.now(),
      traceparent: currentTraceparent(),
    });
  }
}
