import type { Quote } from '@nestegg/contract';
import { type Database, stockQuote } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { roundDecimal } from '@nestegg/domain';
import { eq, sql } from 'drizzle-orm';
import { NotFoundError, ServiceUnavailableError } from '../../../lib/errors.js';
import { QuoteFailedError, type QuoteProvider } from './quote-provider.js';

export interface QuotesDeps {
  db: Database;
  clock: Clock;
  /** The quote provider; null when `QUOTE_API_URL`/`QUOTE_API_KEY` are not set (cached quotes are still served). */
  provider: QuoteProvider | null;
  /** A quote attempted within this many milliseconds is not asked again (`QUOTE_MAX_AGE_SECONDS`). */
  maxAgeMs: number;
  /** Provider calls of one refresh start within this many milliseconds (the provider's timeout). */
  refreshBudgetMs: number;
}

/** What the cache knows of a code: the last price the provider gave, and when. */
export interface KnownQuote {
  /** Null: never answered, or unknown to the provider (then `fetchedAt` is set). */
  price: string | null;
  fetchedAt: Date | null;
}

/** Provider calls running at once for one refresh (a portfolio of many codes on a cold cache). */
const MAX_PARALLEL_CALLS = 4;

/**
 * Runs `work` over `items`, at most `limit` at a time; an item not started by `deadline` (epoch ms) is
 * skipped, so a hanging provider costs a view about one timeout, not one per batch of codes.
 */
async function withinDeadline<T, R>(
  items: T[],
  limit: number,
  deadline: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined && Date.now() < deadline; item = queue.shift()) {
      results.push(await work(item));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Stock quotes through a cache shared by every member and api replica (`stock_quote`). A caller refreshes
 * a code only after claiming it: one statement moves `attempted_at` to now where it is older than the
 * freshness window (or inserts the code), and only the codes it returns are asked of the provider — so a
 * busy view calls the provider at most once per code and window, whatever the number of requests or
 * replicas. Everyone else, and everyone while the provider is down, reads the last known quote.
 */
export class QuotesService {
  constructor(private readonly deps: QuotesDeps) {}

  /** Whether a code last attempted at `attemptedAt` (null: never) is due for a refresh. */
  isDue(attemptedAt: Date | null): boolean {
    if (!this.deps.provider) return false;
    return attemptedAt === null || attemptedAt.getTime() <= this.deps.clock.now().getTime() - this.deps.maxAgeMs;
  }

  /**
   * Refreshes the given codes that this caller wins the claim for, and returns what the provider answered
   * for them (a failed call is left out: the code keeps its last known quote until the next window).
   */
  async refresh(codes: string[]): Promise<Map<string, KnownQuote>> {
    const provider = this.deps.provider;
    const answered = new Map<string, KnownQuote>();
    if (!provider || codes.length === 0) return answered;
    const now = this.deps.clock.now();
    const claimed = await this.claim([...new Set(codes)].sort(), now);
    // Codes claimed but skipped keep their last known quote until the next window.
    const deadline = Date.now() + this.deps.refreshBudgetMs;
    const results = await withinDeadline(claimed, MAX_PARALLEL_CALLS, deadline, async (code) => {
      try {
        return { code, quote: await provider.quote(code) };
      } catch (error) {
        if (error instanceof QuoteFailedError) return null;
        throw error;
      }
    });
    for (const result of results) {
      if (result) answered.set(result.code, { price: result.quote?.price ?? null, fetchedAt: now });
    }
    await this.store(answered, now);
    return answered;
  }

  /**
   * One code's quote (`GET /api/account/quotes/:code`), refreshed when due. 404 when the provider does not
   * know the code; 503 when no quote is known and the provider is down or not set up.
   */
  async lookup(code: string): Promise<Quote> {
    const [cached] = await this.deps.db.select().from(stockQuote).where(eq(stockQuote.code, code));
    let known: KnownQuote | undefined = cached;
    if (this.isDue(cached?.attemptedAt ?? null)) known = (await this.refresh([code])).get(code) ?? cached;
    if (known?.price != null && known.fetchedAt) {
      return {
        stockCode: code,
        name: null,
        price: roundDecimal(known.price, 4),
        currency: null,
        asOf: known.fetchedAt.toISOString(),
      };
    }
    if (known?.fetchedAt) throw new NotFoundError('stock code');
    if (!this.deps.provider) {
      throw new ServiceUnavailableError('PROVIDER_NOT_CONFIGURED', 'Quotes are not set up on this server.');
    }
    throw new ServiceUnavailableError('PROVIDER_UNAVAILABLE', 'The quote provider cannot be reached right now.');
  }

  /** The codes whose last attempt is outside the window (or that are new), now claimed by this caller. */
  private async claim(codes: string[], now: Date): Promise<string[]> {
    const cutoff = new Date(now.getTime() - this.deps.maxAgeMs);
    // Codes in a fixed order, so two claims of overlapping sets take the key locks in the same order.
    const rows = await this.deps.db.execute<{ code: string }>(sql`
      insert into stock_quote (code, attempted_at)
      select c.code, ${now.toISOString()}::timestamptz
        from jsonb_array_elements_text(${JSON.stringify(codes)}::jsonb) as c(code)
       order by c.code
      on conflict (code) do update set attempted_at = excluded.attempted_at
       where stock_quote.attempted_at <= ${cutoff.toISOString()}::timestamptz
      returning code`);
    return rows.map((row) => row.code);
  }

  private async store(answered: Map<string, KnownQuote>, now: Date): Promise<void> {
    if (answered.size === 0) return;
    const values = [...answered].map(([code, quote]) => ({ code, price: quote.price }));
    await this.deps.db.execute(sql`
      update stock_quote set price = v.price, fetched_at = ${now.toISOString()}::timestamptz
        from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(code text, price numeric)
       where stock_quote.code = v.code`);
  }
}
