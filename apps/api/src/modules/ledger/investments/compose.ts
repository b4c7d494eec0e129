import type { Infrastructure } from '../../../lib/infrastructure.js';
import { HoldingsService } from './holdings.service.js';
import { AlphaVantageQuoteProvider } from './quote-provider.js';
import { QuotesService } from './quotes.service.js';
import { TradesService } from './trades.service.js';

/** The investment services, each given exactly what it uses (called by the composition root). */
export function investmentServices({ env, db, clock, logger }: Infrastructure) {
  const provider =
    env.QUOTE_API_URL && env.QUOTE_API_KEY
      ? new AlphaVantageQuoteProvider(
          { baseUrl: env.QUOTE_API_URL, apiKey: env.QUOTE_API_KEY, timeoutMs: env.QUOTE_TIMEOUT_MS },
          logger,
        )
      : null;
  const quotes = new QuotesService({
    db,
    clock,
    provider,
    maxAgeMs: env.QUOTE_MAX_AGE_SECONDS * 1000,
    refreshBudgetMs: env.QUOTE_TIMEOUT_MS > 0 ? env.QUOTE_TIMEOUT_MS : 5000,
  });
  return { quotes, holdings: new HoldingsService({ db, quotes }), trades: new TradesService({ db }) };
}
