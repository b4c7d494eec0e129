import type { DbOrTx, PurchaseStore } from '@nestegg/db';
import { sql } from 'drizzle-orm';
import { type ReadNotification, STORE_INBOX_CHANNEL } from './notifications.js';

/**
 * Stores a push in the notification inbox, once per store and message id (a redelivery changes nothing), and wakes
 * the billing worker at commit. One statement. A notification that cannot be processed is stored as
 * REJECTED with its error, processed at once. The wake-up's payload is the row's id, followed by the
 * storing request's W3C `traceparent` when it is traced (`<id> <traceparent>`), so the job that processes
 * it links to the request (decision O14). Returns whether the notification is new.
 */
export async function storeInInbox(
  db: DbOrTx,
  push: {
    messageId: string;
    envelope: unknown;
    read: ReadNotification;
    now: Date;
    traceparent?: string | undefined;
    /** Google Play unless said (the App Store's notifications share the inbox, decision BL26). */
    store?: PurchaseStore;
    /** The App Store's notification type (and subtype). */
    event?: string | null;
  },
): Promise<boolean> {
  const { read } = push;
  const rejected = read.error !== null;
  const now = push.now.toISOString();
  const [row] = await db.execute<{ stored: number }>(sql`
    with stored as (
      insert into store_notification
        (store, message_id, payload, received_at, kind, notification_type, event, purchase_token, status, error,
         processed_at)
      values (${push.store ?? 'GOOGLE_PLAY'}::purchase_store, ${push.messageId}, ${JSON.stringify(push.envelope)}::jsonb,
              ${now}::timestamptz, ${read.kind}, ${read.notificationType}, ${push.event ?? null}, ${read.purchaseToken},
              ${rejected ? 'REJECTED' : 'RECEIVED'}, ${read.error}, ${rejected ? now : null}::timestamptz)
      on conflict (store, message_id) do nothing
      returning id, status
    ), woken as (
      select pg_notify(${STORE_INBOX_CHANNEL}, id::text || coalesce(' ' || ${push.traceparent ?? null}::text, ''))
        from stored where status = 'RECEIVED'
    )
    select (select count(*) from stored)::int as stored, (select count(*) from woken)::int as woken`);
  return (row?.stored ?? 0) > 0;
}
