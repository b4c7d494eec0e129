import type { DbOrTx } from '@nestegg/db';
import { sql } from 'drizzle-orm';
import { type ReadNotification, STORE_INBOX_CHANNEL } from './notifications.js';

/**
 * Stores a push in the notification inbox, once per message id (a redelivery changes nothing), and wakes
 * the billing worker at commit. One statement. A notification that cannot be processed is stored as
 * REJECTED with its error, processed at once. The wake-up's payload is the row's id, followed by the
 * storing request's W3C `traceparent` when it is traced (`<id> <traceparent>`), so the job that processes
 * it links to the request (decision O14).
 */
export async function storeInInbox(
  db: DbOrTx,
  push: { messageId: string; envelope: unknown; read: ReadNotification; now: Date; traceparent?: string | undefined },
): Promise<void> {
  const { read } = push;
  const rejected = read.error !== null;
  const now = push.now.toISOString();
  await db.execute(sql`
    with stored as (
      insert into store_notification
        (message_id, payload, received_at, kind, notification_type, purchase_token, status, error, processed_at)
      values (${push.messageId}, ${JSON.stringify(push.envelope)}::jsonb, ${now}::timestamptz, ${read.kind},
              ${read.notificationType}, ${read.purchaseToken}, ${rejected ? 'REJECTED' : 'RECEIVED'}, ${read.error},
              ${rejected ? now : null}::timestamptz)
      on conflict (message_id) do nothing
      returning id, status
    )
    select pg_notify(${STORE_INBOX_CHANNEL}, id::text || coalesce(' ' || ${push.traceparent ?? null}::text, ''))
      from stored where status = 'RECEIVED'`);
}
