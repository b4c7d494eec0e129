import type { FxRate } from '@nestegg/contract';
import { type Database, type DbOrTx, fxRate } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { type CalendarDate, dateIn } from '@nestegg/domain';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { ServiceUnavailableError, ValidationFailedError } from '../../../lib/errors.js';
import { lockExchangeRate } from '../../../lib/locks.js';
import {
  CurrencyNotFoundError,
  ExchangeRateProvider,
  type ExchangeRateProviderConfig,
} from './exchange-rate-provider.js';

export type { ExchangeRateProviderConfig } from './exchange-rate-provider.js';

export interface ExchangeRatesDeps {
  db: Database;
  clock: Clock;
  logger: FastifyBaseLogger;
  provider: ExchangeRateProviderConfig | null;
  /** `APP_TIMEZONE`: whose calendar day "today's rate" is cached under. */
  timeZone: string;
}

/** numeric(24,12) reads back with trailing zeros: `0.000731000000` → `0.000731`, `1.000000000000` → `1`. */
const trimmed = (decimal: string) => (decimal.includes('.') ? decimal.replace(/\.?0+$/, '') : decimal);

/**
 * Exchange rates from the provider, cached in PostgreSQL per currency pair and day (shared by every api
 * replica). A missing rate is an error (404 unknown currency, 503 provider down), never a silent 1:1.
 */
export class ExchangeRatesService {
  private readonly provider: ExchangeRateProvider | null;
  /** Lookups in flight in this process: parallel requests for one pair and day share one. */
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly cachedQuery;

  constructor(private readonly deps: ExchangeRatesDeps) {
    this.provider = deps.provider ? new ExchangeRateProvider(deps.provider, deps.logger) : null;
    this.cachedQuery = deps.db
      .select({ rate: fxRate.rate })
      .from(fxRate)
      .where(
        and(
          eq(fxRate.base, sql.placeholder('base')),
          eq(fxRate.quote, sql.placeholder('quote')),
          eq(fxRate.day, sql.placeholder('day')),
        ),
      )
      .prepare('fx_rate_cached');
  }

  /**
   * Units of `to` per one `from` on `date` (default: today in the ledger's calendar), as an exact decimal
   * string. For other services too (card notifications convert foreign amounts with it).
   */
  async rateFor(from: string, to: string, date?: CalendarDate): Promise<FxRate> {
    const today = dateIn(this.deps.timeZone, this.deps.clock.now());
    const day = date ?? today;
    if (day > today) throw new ValidationFailedError([{ path: 'query.date', message: 'a future day has no rate' }]);
    if (from === to) return { from, to, rate: '1', date: day };
    const rate = (await this.cached(from, to, day)) ?? (await this.fetchOnce(from, to, day, day === today));
    return { from, to, rate: trimmed(rate), date: day };
  }

  private async cached(base: string, quote: string, day: CalendarDate): Promise<string | undefined> {
    const [row] = await this.cachedQuery.execute({ base, quote, day });
    return row?.rate;
  }

  private fetchOnce(from: string, to: string, day: CalendarDate, isToday: boolean): Promise<string> {
    const key = `${from}/${to}/${day}`;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.fetchAndCache(from, to, day, isToday).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /**
   * Across replicas: a transaction-scoped advisory lock on the pair and day, then the cache is read again,
   * so only the first replica calls the provider and the others find its row. The lock is held during the
   * call (bounded by `FX_TIMEOUT_MS`), on one connection per replica thanks to `inFlight`.
   */
  private async fetchAndCache(from: string, to: string, day: CalendarDate, isToday: boolean): Promise<string> {
    const provider = this.provider;
    if (!provider) {
      throw new ServiceUnavailableError('PROVIDER_NOT_CONFIGURED', 'Exchange rates are not set up on this server.');
    }
    return this.deps.db.transaction(async (tx) => {
      await lockExchangeRate(tx, from, to, day);
      const [cached] = await this.readRate(tx, from, to, day);
      if (cached) return cached.rate;
      const rates = isToday ? new Map([[to, await provider.latest(from, to)]]) : await provider.history(from, day);
      const rate = rates.get(to);
      if (rate === undefined) throw new CurrencyNotFoundError();
      // A past day's answer lists every quote of the base: all are kept, later pairs need no call.
      const rows = [...rates].map(([quote, value]) => ({ base: from, quote, day, rate: value }));
      await tx.insert(fxRate).values(rows).onConflictDoNothing();
      const [stored] = await this.readRate(tx, from, to, day);
      return stored!.rate;
    });
  }

  private readRate(db: DbOrTx, base: string, quote: string, day: CalendarDate) {
    return db
      .select({ rate: fxRate.rate })
      .from(fxRate)
      .where(and(eq(fxRate.base, base), eq(fxRate.quote, quote), eq(fxRate.day, day)));
  }
}
