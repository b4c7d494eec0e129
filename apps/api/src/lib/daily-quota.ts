import type { Clock } from '@nestegg/domain';
import { dateIn } from '@nestegg/domain';
import type { FastifyBaseLogger } from 'fastify';
import type { AttemptStore } from './attempt-store.js';
import type { AppError } from './errors.js';

export interface DailyQuotaDeps {
  /** The shared counters (Redis across replicas; in memory for a single instance without Redis). */
  attempts: AttemptStore;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** Days are counted in this IANA time zone (`APP_TIMEZONE`). */
  timeZone: string;
}

/** What one quota counts and how it refuses. */
export interface DailyQuotaRules {
  /** Names the counter's key and the log lines (`receipt`, `statement-import`). */
  name: string;
  /** What one use is called in the counter (`recognitions`, `uploads`). */
  unit: string;
  /** The day's uses are spent: a 429 with `retryAfterSeconds` until the next day starts. */
  exceeded(retryAfterSeconds: number): AppError;
  /** The counter store failed: a 503 (every use costs, so none passes uncounted). */
  unavailable(): AppError;
}

/** A reserved use; given back when the work it was reserved for did not happen. */
export interface QuotaSlot {
  release(): Promise<void>;
}

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
 * A per-member daily quota of costly work (receipt recognitions, statement uploads): one counter per member and
 * day in the attempt store, reserved atomically before the work, so parallel requests cannot all pass a count
 * that was only read. When the counter store fails the request is refused (503), unlike a login limit: letting
 * costly work through unbounded is worse than a short refusal.
 */
export class DailyQuota {
  constructor(
    private readonly deps: DailyQuotaDeps,
    private readonly rules: DailyQuotaRules,
  ) {}

  /** Counts one use for `memberId` today, or throws the quota's 429 when `perDay` are used. */
  async reserve(memberId: number, perDay: number): Promise<QuotaSlot> {
    const now = this.deps.clock.now();
    const key = `${this.rules.name}-quota:${memberId}:${dateIn(this.deps.timeZone, now)}`;
    const untilNextDay = secondsUntilNextDay(this.deps.timeZone, now);
    const reservation = await this.deps.attempts
      .reserve(key, this.rules.unit, perDay, untilNextDay * 1000 + EXPIRY_MARGIN_MS)
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error, quota: this.rules.name }, 'quota counter unavailable; refusing');
        throw this.rules.unavailable();
      });
    if (!reservation.allowed) throw this.rules.exceeded(untilNextDay);
    return { release: () => this.release(key) };
  }

  private async release(key: string): Promise<void> {
    await this.deps.attempts.release(key, this.rules.unit).catch((error: unknown) => {
      this.deps.logger.warn({ err: error, quota: this.rules.name }, 'could not give back a quota use');
    });
  }
}
