import type { StoreNotificationRequest } from '@nestegg/contract';
import type { Database } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { type PushAuthenticator, readDeveloperNotification, storeInInbox } from '@nestegg/membership';
import { currentTraceparent } from '@nestegg/telemetry';
import { ServiceUnavailableError } from '../../../lib/errors.js';
import { problemFor } from './problems.js';

export interface StoreNotificationIntakeDeps {
  db: Database;
  /** Null when the push is not configured (the endpoint then answers 503 and the store retries). */
  push: PushAuthenticator | null;
  /** Notifications for another package are kept with an error; null when the store is not configured. */
  packageName: string | null;
  clock: Clock;
}

/**
 * The store's real-time notifications: authenticated, stored once per message id, handed to the worker.
 * Nothing else happens on the request (one statement), so the store gets its 2xx within milliseconds and
 * never redelivers; a payload that cannot be processed is stored with its error and still acknowledged.
 */
export class StoreNotificationIntake {
  constructor(private readonly deps: StoreNotificationIntakeDeps) {}

  /** Refuses a push without an acceptable token of the store's push service (before the body is read). */
  async authenticate(authorization: string | undefined): Promise<void> {
    if (!this.deps.push) {
      throw new ServiceUnavailableError('STORE_NOT_CONFIGURED', 'Store notifications are not configured.');
    }
    try {
      await this.deps.push.verify(authorization);
    } catch (error) {
      throw problemFor(error);
    }
  }

  /** Stores the push in the inbox (a repeated message id changes nothing) and wakes the worker. */
  async receive(envelope: StoreNotificationRequest): Promise<void> {
    await storeInInbox(this.deps.db, {
      messageId: envelope.message.messageId,
      envelope,
      read: readDeveloperNotification(envelope.message.data, this.deps.packageName),
      now: this.deps.clock.now(),
      traceparent: currentTraceparent(),
    });
  }
}
