import { DailyQuota, type DailyQuotaDeps, type QuotaSlot } from '../../../lib/daily-quota.js';
import { AppError, ServiceUnavailableError } from '../../../lib/errors.js';

/** The day's recognitions are used: 429 with `Retry-After` until the next day starts. */
export class ReceiptQuotaExceededError extends AppError {
  constructor(retryAfterSeconds: number) {
    super('RECEIPT_QUOTA_EXCEEDED', "You have used today's receipt recognitions. Try again tomorrow.", {
      retryAfterSeconds,
    });
  }
}

/**
 * The per-member daily quota of receipt recognitions (`OCR_DAILY_QUOTA`): each call costs money at the
 * provider, so a failing counter store refuses (503) rather than letting calls through.
 */
export class ReceiptQuota {
  private readonly quota: DailyQuota;

  constructor(private readonly deps: DailyQuotaDeps & { perDay: number }) {
    this.quota = new DailyQuota(deps, {
      name: 'receipt',
      unit: 'recognitions',
      exceeded: (seconds) => new ReceiptQuotaExceededError(seconds),
      unavailable: () =>
        new ServiceUnavailableError(
          'SERVICE_UNAVAILABLE',
          'Receipt recognition is not available right now. Try again shortly.',
        ),
    });
  }

  /** Counts one recognition for `memberId` today, or throws 429 `RECEIPT_QUOTA_EXCEEDED`. */
  reserve(memberId: number): Promise<QuotaSlot> {
    return this.quota.reserve(memberId, this.deps.perDay);
  }
}
