import { roundDecimal } from '@nestegg/domain';
import type { FastifyBaseLogger } from 'fastify';

/** Where the quote provider is (`QUOTE_API_URL`, `QUOTE_API_KEY`, `QUOTE_TIMEOUT_MS`); null when not set up. */
export interface QuoteProviderConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

/** A code's current price as an exact decimal string (4 fractional digits at most), or null: unknown code. */
export type ProviderQuote = { price: string } | null;

/** Looks a stock code up; throws `QuoteFailedError` when the provider gives no usable answer. */
export interface QuoteProvider {
  quote(code: string): Promise<ProviderQuote>;
}

/** The provider failed (down, slow, over its call limit, refused the key). */
export class QuoteFailedError extends Error {}

/** A price as the provider writes it; stored as numeric(18,4). */
const PRICE = /^\d{1,14}(\.\d+)?$/;

interface GlobalQuoteAnswer {
  'Global Quote'?: Record<string, unknown>;
}

/**
 * Alpha Vantage `GET {base}/query?function=GLOBAL_QUOTE&symbol={code}&apikey={key}`. The price is
 * `"Global Quote"."05. price"`, a decimal string (never parsed as a float); an unknown symbol answers an
 * empty `"Global Quote": {}`. Anything else (`Note`/`Information` for call limits, `Error Message` for a bad
 * key or call) is a failure. The answer names no currency: a quote is in the currency the holding says.
 */
export class AlphaVantageQuoteProvider implements QuoteProvider {
  constructor(
    private readonly config: QuoteProviderConfig,
    private readonly logger: FastifyBaseLogger,
  ) {}

  async quote(code: string): Promise<ProviderQuote> {
    const answer = (await this.call(code)) as GlobalQuoteAnswer | null;
    const fields = answer?.['Global Quote'];
    if (typeof fields !== 'object' || fields === null) throw this.failed(code, 'an answer without "Global Quote"');
    if (Object.keys(fields).length === 0) return null;
    const price = fields['05. price'];
    if (typeof price !== 'string' || !PRICE.test(price)) throw this.failed(code, 'a quote without a usable price');
    return { price: roundDecimal(price, 4) };
  }

  private async call(code: string): Promise<unknown> {
    const query = new URLSearchParams({ function: 'GLOBAL_QUOTE', symbol: code, apikey: this.config.apiKey });
    try {
      const response = await fetch(`${this.config.baseUrl.replace(/\/+$/, '')}/query?${query}`, {
        headers: { accept: 'application/json' },
        // QUOTE_TIMEOUT_MS=0 means no limit, as for the other timeouts.
        ...(this.config.timeoutMs > 0 ? { signal: AbortSignal.timeout(this.config.timeoutMs) } : {}),
      });
      if (!response.ok) throw this.failed(code, `status ${response.status}`);
      return await response.json();
    } catch (error) {
      if (error instanceof QuoteFailedError) throw error;
      // The URL carries the key: log the code only.
      this.logger.warn({ err: error, code }, 'quote provider unreachable');
      throw new QuoteFailedError('unreachable');
    }
  }

  private failed(code: string, reason: string): QuoteFailedError {
    this.logger.error({ code, reason }, 'quote provider gave no usable answer');
    return new QuoteFailedError(reason);
  }
}
