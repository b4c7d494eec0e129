import type { Database } from '@nestegg/db';
import {
  type AppStoreGateway,
  readAppStoreNotification,
  SignatureRejectedError,
  storeInInbox,
} from '@nestegg/membership';
import type { Logger } from 'pino';
import type { ScheduledJob } from './job.js';

export const APPSTORE_HISTORY_QUEUE = 'appstore-notification-history';
const DAY_MS = 86_400_000;

export interface HistorySummary {
  /** Notifications Apple lists for the window. */
  listed: number;
  /** Of them, the ones the inbox did not have: stored now and applied like any other. */
  recovered: number;
  /** Listed but not verifying (kept out of the inbox, logged). */
  rejected: number;
}

/**
 * The daily safety net for missed App Store notifications (decision BL28), the counterpart of the voided-purchase
 * poll: Get Notification History lists what Apple sent in the look-back window, and each one the inbox does not
 * have yet (by notificationUUID) is verified and stored there, so the worker applies it as if it had arrived.
 */
export async function recoverAppStoreNotifications(deps: {
  db: Database;
  gateway: AppStoreGateway;
  logger: Logger;
  now: Date;
  lookbackDays: number;
}): Promise<HistorySummary> {
  const payloads = await deps.gateway.notificationHistory({
    start: new Date(deps.now.getTime() - deps.lookbackDays * DAY_MS),
    end: deps.now,
  });
  const summary: HistorySummary = { listed: payloads.length, recovered: 0, rejected: 0 };
  for (const signedPayload of payloads) {
    let verified: Awaited<ReturnType<AppStoreGateway['verifyNotification']>>;
    try {
      verified = await deps.gateway.verifyNotification(signedPayload);
    } catch (error) {
      if (!(error instanceof SignatureRejectedError)) throw error;
      deps.logger.warn({ err: error }, 'App Store notification history: a notification does not verify');
      summary.rejected += 1;
      continue;
    }
    const read = readAppStoreNotification(verified, deps.gateway.grants(verified.environment));
    const stored = await storeInInbox(deps.db, {
      store: 'APP_STORE',
      messageId: read.messageId,
      event: read.event,
      envelope: {
        signedPayload,
        environment: read.environment,
        notificationType: verified.payload.notificationType,
        subtype: verified.payload.subtype ?? null,
        recoveredFromHistory: true,
      },
      read,
      now: deps.now,
    });
    if (stored) summary.recovered += 1;
  }
  return summary;
}

export const appStoreNotificationHistoryJob: ScheduledJob = {
  queue: APPSTORE_HISTORY_QUEUE,
  cron: (env) => env.APPSTORE_HISTORY_CRON,
  run: async ({ db, logger, now, membership }, env) => {
    if (!membership?.appStoreGateway) return { skipped: 'the App Store is not configured' };
    return {
      ...(await recoverAppStoreNotifications({
        db,
        gateway: membership.appStoreGateway,
        logger,
        now: now(),
        lookbackDays: env.APPSTORE_HISTORY_LOOKBACK_DAYS,
      })),
    };
  },
};
