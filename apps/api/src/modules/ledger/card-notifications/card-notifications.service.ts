import {
  type Entry,
  MEMO_MAX,
  type NotificationCreated,
  type NotificationRequest,
  type NotificationSkipped,
  type NotificationSkipReason,
  type ParseRequest,
  type ParseResult,
  type PendingCount,
} from '@nestegg/contract';
import { cardCancellation, type Database, type DbOrTx } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { addDays, dateIn } from '@nestegg/domain';
import { and, eq } from 'drizzle-orm';
import { NotFoundError } from '../../../lib/errors.js';
import { shareMemberCategories } from '../../../lib/locks.js';
import type { PendingEntries } from '../entries/index.js';
import type { ExchangeRatesService } from '../exchange-rates/index.js';
import {
  convertedAmount,
  INSTALMENT_WALLET_TYPE,
  LOCAL_CURRENCY,
  learnedCategory,
  memberWalletsOfTypes,
  storableOriginalAmount,
  storedRate,
  withConstraintErrors,
} from '../kernel/index.js';
import type { AccountNumberCipher } from '../wallets/index.js';
import { type NotificationKeys, notificationKeys } from './notification-key.js';
import { type ParsedCardNotification, type ParsedCardTransaction, parseCardNotification } from './parser.js';
import {
  CARD_WALLET_TYPES,
  chooseWallet,
  issuerOf,
  last4OfName,
  last4OfNumber,
  type MatchableWallet,
} from './wallet-matching.js';

export interface CardNotificationsDeps {
  db: Database;
  clock: Clock;
  /** The entries module's face for pending entries: this module writes no entry itself. */
  pendingEntries: PendingEntries;
  exchangeRates: Pick<ExchangeRatesService, 'rateFor'>;
  accountNumbers: Pick<AccountNumberCipher, 'decrypt'>;
  /** `APP_TIMEZONE`: the calendar an approval's date is read in. */
  timeZone: string;
}

/** A cancellation looks for its approval among entries dated this many days before it, and its own day. */
export const CANCELLATION_WINDOW_DAYS = 90;

export type NotificationResult = NotificationCreated | NotificationSkipped;

/** The local amount of an approval, and the foreign triple when it was paid in another currency. */
interface LocalMoney {
  amount: number;
  foreign: { currency: string; originalAmount: string; exchangeRate: string } | null;
}

const skipped = (reason: NotificationSkipReason, entryId: number | null = null): NotificationSkipped => ({
  created: false,
  reason,
  entryId,
});

/** Values the parser read, held to what the contract and the entry columns can take (else null). */
function storable(parsed: ParsedCardNotification): ParsedCardNotification {
  if (parsed.ignored) return parsed;
  const safe = (value: number | null, min: number) =>
    value !== null && Number.isSafeInteger(value) && value >= min ? value : null;
  return {
    ...parsed,
    amount: safe(parsed.amount, 1),
    cumulativeAmount: safe(parsed.cumulativeAmount, 0),
    originalAmount: storableOriginalAmount(parsed.originalAmount),
  };
}

/** The merchant as an entry memo (at most MEMO_MAX characters, whole code points). */
function memoOf(merchant: string | null): string | null {
  const trimmed = merchant?.trim();
  return trimmed ? Array.from(trimmed).slice(0, MEMO_MAX).join('') : null;
}

const readable = (parsed: ParsedCardTransaction) =>
  parsed.currency === LOCAL_CURRENCY ? parsed.amount !== null : parsed.originalAmount !== null;

/**
 * Card notifications (issue 10, spec behaviour rules 1–3): parsing, pending expenses from approvals with
 * content-keyed de-duplication, card matching, foreign conversion and category learning, cancellations,
 * confirmation and the pending count. Every statement is scoped by the member.
 */
export class CardNotificationsService {
  constructor(private readonly deps: CardNotificationsDeps) {}

  /** Reads a text; saves nothing. */
  parse(body: ParseRequest): ParseResult {
    return storable(parseCardNotification(body.text, { receivedAt: this.receivedAt(body) }));
  }

  /**
   * An approval becomes a pending expense (once per content key); a cancellation removes the approval it
   * cancels. A wallet sent that is not the member's is 404 whatever the text says.
   */
  async notify(memberId: number, body: NotificationRequest): Promise<NotificationResult> {
    const wallets = await this.walletsOf(memberId, body.accountId);
    const receivedAt = this.receivedAt(body);
    const parsed = storable(parseCardNotification(body.text, { receivedAt }));
    if (parsed.ignored) return skipped('IGNORED');
    if (!readable(parsed)) return skipped('UNREADABLE');
    const keys = notificationKeys(parsed, receivedAt);
    const date = dateIn(this.deps.timeZone, parsed.occurredAt ? new Date(parsed.occurredAt) : receivedAt);
    if (parsed.kind === 'CANCELLATION') return this.cancel(memberId, keys, date);
    const existing = await this.deps.pendingEntries.idOfKey(memberId, keys.key);
    if (existing !== null) return skipped('DUPLICATE', existing);
    const money = await this.localMoney(parsed, date);
    if (!money) return skipped('UNREADABLE');
    const card = { company: parsed.cardCompany, last4: parsed.cardLast4 };
    const accountId = chooseWallet(wallets, card, body.accountId ?? null);
    const onCreditCard = wallets.find((wallet) => wallet.id === accountId)?.type === INSTALMENT_WALLET_TYPE;
    return this.recordApproval(memberId, {
      key: keys.key,
      date,
      money,
      accountId,
      memo: memoOf(parsed.merchant),
      installmentMonths: onCreditCard ? parsed.installmentMonths : null,
    });
  }

  /** Confirms a pending entry (the entries module does it; a confirmed one is answered as it is). */
  confirm(memberId: number, id: number): Promise<Entry> {
    return this.deps.pendingEntries.confirm(memberId, id);
  }

  pendingCount(memberId: number): Promise<PendingCount> {
    return this.deps.pendingEntries.count(memberId);
  }

  private receivedAt(body: { receivedAt?: string | undefined }): Date {
    return body.receivedAt ? new Date(body.receivedAt) : this.deps.clock.now();
  }

  /** The member's card wallets, and the wallet the device chose (404 when it is not the member's). */
  private async walletsOf(memberId: number, chosenId: number | undefined): Promise<MatchableWallet[]> {
    const rows = await memberWalletsOfTypes(this.deps.db, memberId, CARD_WALLET_TYPES, chosenId);
    if (chosenId !== undefined && !rows.some((row) => row.id === chosenId)) throw new NotFoundError('wallet');
    return rows.map((row) => ({
      id: row.id,
      type: row.type,
      issuer: row.cardCompany?.trim() ? (issuerOf(row.cardCompany) ?? row.cardCompany.trim()) : issuerOf(row.name),
      last4: last4OfNumber(this.readableNumber(row.accountNumber)) ?? last4OfName(row.name),
    }));
  }

  /** A number no configured key opens only loses its digits for matching; the notification goes on. */
  private readableNumber(stored: string | null): string | null {
    try {
      return this.deps.accountNumbers.decrypt(stored);
    } catch {
      return null;
    }
  }

  /**
   * A won amount as it is; a foreign one at the approval day's rate (today's when the approval looks later
   * than today), exactly: 503 when the provider cannot answer, never 1:1.
   */
  private async localMoney(parsed: ParsedCardTransaction, date: string): Promise<LocalMoney | null> {
    if (parsed.currency === LOCAL_CURRENCY)
      return parsed.amount === null ? null : { amount: parsed.amount, foreign: null };
    const originalAmount = parsed.originalAmount!;
    const today = dateIn(this.deps.timeZone, this.deps.clock.now());
    const fx = await this.deps.exchangeRates.rateFor(parsed.currency, LOCAL_CURRENCY, date > today ? today : date);
    const exchangeRate = storedRate(fx.rate);
    const amount = convertedAmount(originalAmount, exchangeRate);
    if (amount === null) return null;
    return { amount, foreign: { currency: parsed.currency, originalAmount, exchangeRate } };
  }

  /**
   * Records the pending expense through the entries module (once per content key). The category is learned in
   * the same transaction, under the member's shared category lock (decision L13).
   */
  private async recordApproval(
    memberId: number,
    approval: {
      key: string;
      date: string;
      money: LocalMoney;
      accountId: number | null;
      memo: string | null;
      installmentMonths: number | null;
    },
  ): Promise<NotificationResult> {
    const { pendingEntries } = this.deps;
    const created = await withConstraintErrors(() =>
      this.deps.db.transaction(async (tx) => {
        await shareMemberCategories(tx, memberId);
        const category = await learnedCategory(tx, memberId, 'EXPENSE', approval.memo);
        const { money, ...rest } = approval;
        return pendingEntries.record(tx, memberId, { ...rest, ...money, category });
      }),
    );
    if (created) return { created: true, entry: created };
    return skipped('DUPLICATE', await pendingEntries.idOfKey(memberId, approval.key));
  }

  /**
   * Removes the approval a cancellation cancels: the latest entry with the approval's key prefix (same
   * card, amount and merchant) dated in the window before the cancellation, pending or confirmed (its
   * balance, learning and sync follow through the triggers). The cancellation's own key is recorded first,
   * so the same cancellation arriving again (or at once) cancels nothing more.
   */
  private cancel(memberId: number, keys: NotificationKeys, date: string): Promise<NotificationSkipped> {
    return this.deps.db.transaction(async (tx) => {
      const [fresh] = await tx
        .insert(cardCancellation)
        .values({ memberId, notifKey: keys.key })
        .onConflictDoNothing()
        .returning({ notifKey: cardCancellation.notifKey });
      if (!fresh) return skipped('DUPLICATE', await this.cancelledBefore(tx, memberId, keys.key));
      const approvalId = await this.deps.pendingEntries.removeLatestWithKeyPrefix(tx, memberId, keys.approvalPrefix, {
        from: addDays(date, -CANCELLATION_WINDOW_DAYS),
        to: date,
      });
      if (approvalId === null) return skipped('APPROVAL_NOT_FOUND');
      await tx
        .update(cardCancellation)
        .set({ entryId: approvalId })
        .where(and(eq(cardCancellation.memberId, memberId), eq(cardCancellation.notifKey, keys.key)));
      return skipped('CANCELLED', approvalId);
    });
  }

  private async cancelledBefore(tx: DbOrTx, memberId: number, key: string): Promise<number | null> {
    const [seen] = await tx
      .select({ entryId: cardCancellation.entryId })
      .from(cardCancellation)
      .where(and(eq(cardCancellation.memberId, memberId), eq(cardCancellation.notifKey, key)));
    return seen?.entryId ?? null;
  }
}
