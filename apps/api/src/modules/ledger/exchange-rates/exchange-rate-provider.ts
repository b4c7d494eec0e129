import type { CalendarDate } from '@nestegg/domain';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, ServiceUnavailableError } from '../../../lib/errors.js';

/** Where the exchange-rate provider is (`FX_API_URL`, `FX_API_KEY`, `FX_TIMEOUT_MS`); null when not set up. */
export interface ExchangeRateProviderConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

/** The provider has no rate for this currency (or this day): 404 `CURRENCY_NOT_FOUND`. */
export class CurrencyNotFoundError extends AppError {
  constructor(message = 'The exchange-rate provider has no rate for this currency.') {
    super('CURRENCY_NOT_FOUND', message);
  }
}

/** The provider could not give an answer (down, slow, over quota, misconfigured): 503, never a guessed rate. */
export class ProviderUnavailableError extends ServiceUnavailableError {
  constructor() {
    super('PROVIDER_UNAVAILABLE', 'The exchange-rate provider cannot be reached right now. Try again later.');
  }
}

/** Error types meaning "no such rate"; every other error type (invalid-key, quota-reached, …) is an outage for us. */
const NOT_FOUND_ERRORS = new Set(['unsupported-code', 'no-data-available']);

/** A JSON number exactly as written: digits, optional fraction, optional exponent (no sign: rates are positive). */
const JSON_NUMBER = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The decimal a provider wrote, without going through a float: `7.31e-4` → `0.000731`, `1350.2` →
 * `1350.2`. Null when it is not a positive number or not one we can store (numeric(24,12)).
 */
export function plainDecimal(source: string): string | null {
  const match = JSON_NUMBER.exec(source);
  if (!match) return null;
  const [, whole, fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  if (Math.abs(exponent) > 40) return null;
  let digits = `${whole}${fraction}`;
  let point = whole!.length + exponent;
  if (point < 1) {
    digits = `${'0'.repeat(1 - point)}${digits}`;
    point = 1;
  }
  digits = digits.padEnd(point, '0');
  const integer = digits.slice(0, point).replace(/^0+(?=\d)/, '');
  const decimals = digits.slice(point).replace(/0+$/, '');
  if (integer.length > 12 || (integer === '0' && !/[1-9]/.test(decimals.slice(0, 12)))) return null;
  return decimals === '' ? integer : `${integer}.${decimals}`;
}

/** Parses JSON keeping every number as the text the provider sent (ES2025 `JSON.parse` source access). */
function parseKeepingNumbers(text: string): unknown {
  const keepSource = (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined ? context.source : value;
  return JSON.parse(text, keepSource as (key: string, value: unknown) => unknown);
}

interface ProviderAnswer {
  result?: unknown;
  'error-type'?: unknown;
  conversion_rate?: unknown;
  conversion_rates?: unknown;
}

/**
 * The ExchangeRate-API v6 client: `GET {base}/v6/{key}/pair/{from}/{to}` for today's rate and
 * `GET {base}/v6/{key}/history/{base}/{year}/{month}/{day}` for a past day's rates of one base currency.
 */
export class ExchangeRateProvider {
  constructor(
    private readonly config: ExchangeRateProviderConfig,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /** Today's units of `to` per one `from`, as an exact decimal string. */
  async latest(from: string, to: string): Promise<string> {
    const answer = await this.call(`pair/${from}/${to}`);
    const rate = typeof answer.conversion_rate === 'string' ? plainDecimal(answer.conversion_rate) : null;
    if (rate === null) throw this.unusable('pair answer without a usable conversion_rate');
    return rate;
  }

  /** A past day's rates of `base` against every currency the provider knows, as exact decimal strings. */
  async history(base: string, day: CalendarDate): Promise<Map<string, string>> {
    const [year, month, date] = day.split('-').map(Number);
    const answer = await this.call(`history/${base}/${year}/${month}/${date}`);
    const listed = answer.conversion_rates;
    if (typeof listed !== 'object' || listed === null) throw this.unusable('history answer without conversion_rates');
    const rates = new Map<string, string>();
    for (const [quote, value] of Object.entries(listed)) {
      const rate = typeof value === 'string' && /^[A-Z]{3}$/.test(quote) ? plainDecimal(value) : null;
      if (rate !== null) rates.set(quote, rate);
    }
    return rates;
  }

  private async call(path: string): Promise<ProviderAnswer> {
    const url = `${this.config.baseUrl.replace(/\/+$/, '')}/v6/${encodeURIComponent(this.config.apiKey)}/${path}`;
    let status: number;
    let text: string;
    try {
      const response = await fetch(url, {
        headers: { accept: 'application/json' },
        // FX_TIMEOUT_MS=0 means no limit, as for the other timeouts.
        ...(this.config.timeoutMs > 0 ? { signal: AbortSignal.timeout(this.config.timeoutMs) } : {}),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      // The URL carries the key: log the path only.
      this.logger.warn({ err: error, path }, 'exchange-rate provider unreachable');
      throw new ProviderUnavailableError();
    }
    return this.answerOf(path, status, text);
  }

  private answerOf(path: string, status: number, text: string): ProviderAnswer {
    let answer: ProviderAnswer;
    try {
      answer = parseKeepingNumbers(text) as ProviderAnswer;
    } catch {
      throw this.unusable(`status ${status} with a body that is not JSON`, path);
    }
    if (answer?.result === 'success' && status === 200) return answer;
    const errorType = String(answer?.['error-type'] ?? '');
    if (answer?.result === 'error' && NOT_FOUND_ERRORS.has(errorType)) {
      throw new CurrencyNotFoundError(
        errorType === 'no-data-available'
          ? 'The exchange-rate provider has no rate for this currency on that day.'
          : undefined,
      );
    }
    throw this.unusable(`status ${status}, error type "${errorType.slice(0, 60)}"`, path);
  }

  private unusable(reason: string, path?: string): ProviderUnavailableError {
    this.logger.error({ path, reason }, 'exchange-rate provider gave no usable answer');
    return new ProviderUnavailableError();
  }
}
