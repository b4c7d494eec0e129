import type { Database } from '@nestegg/db';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../infrastructure.js';

/** Where the exchange-rate provider is (`FX_API_URL`, `FX_API_KEY`, `FX_TIMEOUT_MS`); null when not set up. */
export interface ExchangeRateProviderConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

export interface ExchangeRatesDeps {
  db: Database;
  clock: Clock;
  logger: FastifyBaseLogger;
  provider: ExchangeRateProviderConfig | null;
}

/** Exchange rates (placeholder until implemented). */
export class ExchangeRatesService {
  constructor(readonly deps: ExchangeRatesDeps) {}
}
