import type { Clock } from '@nestegg/domain';
import { dateIn } from '@nestegg/domain';
import type { FastifyBaseLogger } from 'fastify';
import type { AttemptStore } from '../../../lib/attempt-store.js';
import { AppError, ServiceUnavailableError } from '../../../lib/errors.js';

export interface ReceiptQuotaDeps {
  /** The shared counters (Redis across replicas; in memory for a single instance without Redis). */
  attempts: AttemptStore;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** Days are counted in this IANA time zone (`APP_TIMEZONE`). */
  timeZone: string;
  /** Recognitions per member and day (`OCR_DAILY_QUOTA`). */
  perDay: number;
}

/** The day's recognitions are used: 429 with `Retry-After` until the next day starts. */
export class ReceiptQuotaExceededError extends AppError {
  constructor(retryAfterSeconds: number) {
    super('RECEIPT_QUOTA_EXCEEDED', "You have used today's receipt recognitions. Try again tomorrow.", {
      retryAfterSeconds,
    });
  }
}

/** A reserved recognition; given back when the provider could not do it. */
export interface QuotaSlot {
  release(): Promise<void>;
}

const ATTRIBUTION = 'recognitions';
/** The counter outlives its day by this much, so a clock skew between replicas cannot reopen it. */
const EXPIRY_MARGIN_MS = 3_600_000;

const timeOfDayFormats = new Map<string, Intl.DateTimeFormat>();

/** Seconds from `now` to the next midnight in `timeZone`. */
export function secondsUntilNextDay(timeZone: string, now: Date): number {
  let format = timeOfDayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    timeOfDayFormats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(now).map((part) => [part.type, Number(part.value)]));
  const elapsed = (parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0);
  return Math.max(1, 86_400 - elapsed);
}

/**
 * The per-member daily quota of receipt recognitions: each call costs money at the provider. Counted in
 * the attempt store (one counter per member and day, reserved atomically before the provider is called,
 * so parallel requests cannot all pass a count that was only read). When the counter store fails, the
 * request is refused (503): unlike a login limit, letting calls through would spend money unbounded.
 */
export class ReceiptQuota {
  constructor(private readonly deps: ReceiptQuotaDeps) {}

  /** Counts one recognition for `memberId` today, or throws 429 `RECEIPT_QUOTA_EXCEEDED`. */
  async reserve(memberId: number): Promise<QuotaSlot> {
    const now = this.deps.clock.now();
    const key = `receipt-quota:${memberId}:${dateIn(this.deps.timeZone, now)}`;
    const untilNextDay = secondsUntilNextDay(this.deps.timeZone, now);
    const reservation = await this.deps.attempts
      .reserve(key, ATTRIBUTION, this.deps.perDay, untilNextDay * 1000 + EXPIRY_MARGIN_MS)
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error }, 'receipt quota counter unavailable; refusing recognition');
        throw new ServiceUnavailableError(
          'SERVICE_UNAVAILABLE',
          'Receipt recognition is not available right now. Try again shortly.',
        );
      });
    if (!reservation.allowed) throw new ReceiptQuotaExceededError(untilNextDay);
    return { release: () => this.release(key) };
  }

  private async release(key: string): Promise<void> {
    await this.deps.attempts.release(key, ATTRIBUTION).catch((error: unknown) => {
      this.deps.logger.warn({ err: error }, 'could not give back a receipt recognition');
    });
  }
}
