import type { CreateHoldingRequest, Holding, Portfolio, UpdateHoldingRequest } from '@nestegg/contract';
import { type Database, type DbOrTx, investmentHolding, investmentTrade, stockQuote } from '@nestegg/db';
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import { NotFoundError, ValidationFailedError } from '../../../lib/errors.js';
import { LOCAL_CURRENCY } from '../kernel/index.js';
import { type HoldingRow, toHolding, toPortfolio } from './holding.view.js';
import type { QuotesService } from './quotes.service.js';

export interface HoldingsDeps {
  db: Database;
  quotes: QuotesService;
}

const columns = {
  id: investmentHolding.id,
  name: investmentHolding.name,
  stockCode: investmentHolding.stockCode,
  currency: investmentHolding.currency,
  quantity: investmentHolding.quantity,
  costBasis: investmentHolding.costBasis,
  realizedProfit: investmentHolding.realizedProfit,
  createdAt: investmentHolding.createdAt,
  updatedAt: investmentHolding.updatedAt,
  quotePrice: stockQuote.price,
  quoteFetchedAt: stockQuote.fetchedAt,
  quoteAttemptedAt: stockQuote.attemptedAt,
};

type ListedHolding = HoldingRow & { quoteAttemptedAt: Date | null };

const ownedBy = (memberId: number, id: number): SQL =>
  and(eq(investmentHolding.memberId, memberId), eq(investmentHolding.id, id))!;

/** The member's holdings with the last known quote of each code, built once (V5): by id. */
const prepareList = (db: Database) =>
  db
    .select(columns)
    .from(investmentHolding)
    .leftJoin(stockQuote, eq(stockQuote.code, investmentHolding.stockCode))
    .where(eq(investmentHolding.memberId, sql.placeholder('memberId')))
    .orderBy(asc(investmentHolding.id))
    .prepare('investment_holdings_list');

/** A local-currency holding's prices and fees are whole units: its trades must not have fractions. */
async function assertWholePrices(tx: DbOrTx, memberId: number, holdingId: number): Promise<void> {
  const [fractional] = await tx
    .select({ id: investmentTrade.id })
    .from(investmentTrade)
    .where(
      and(
        eq(investmentTrade.memberId, memberId),
        eq(investmentTrade.holdingId, holdingId),
        sql`(${investmentTrade.price} <> trunc(${investmentTrade.price}) or ${investmentTrade.fee} <> trunc(${investmentTrade.fee}))`,
      ),
    )
    .limit(1);
  if (fractional) {
    throw new ValidationFailedError([
      { path: 'body.currency', message: 'trades of this holding have fractional prices, which local currency has not' },
    ]);
  }
}

/** The local currency named explicitly is the local currency (null), not a foreign one (decision L39). */
const storedCurrency = (currency: string | null): string | null => (currency === LOCAL_CURRENCY ? null : currency);

/**
 * Investment holdings (`/api/account/holdings`) and the portfolio, over explicit dependencies. Quantity,
 * cost basis and realized profit are written by the trades service; quotes come from the shared cache and
 * are refreshed (when due) whenever the list or the portfolio is requested.
 */
export class HoldingsService {
  private readonly listQuery: ReturnType<typeof prepareList>;

  constructor(private readonly deps: HoldingsDeps) {
    this.listQuery = prepareList(deps.db);
  }

  /** The member's holdings, oldest first, with quotes refreshed when due. */
  async list(memberId: number): Promise<Holding[]> {
    return (await this.withFreshQuotes(memberId)).map(toHolding);
  }

  /** The portfolio: valuation and profits per holding and in total, with quotes refreshed when due. */
  async portfolio(memberId: number): Promise<Portfolio> {
    return toPortfolio(await this.withFreshQuotes(memberId));
  }

  /** One holding with its last known quote. */
  async get(memberId: number, id: number): Promise<Holding> {
    const [row] = await this.deps.db
      .select(columns)
      .from(investmentHolding)
      .leftJoin(stockQuote, eq(stockQuote.code, investmentHolding.stockCode))
      .where(ownedBy(memberId, id));
    if (!row) throw new NotFoundError('holding');
    return toHolding(row);
  }

  async create(memberId: number, fields: CreateHoldingRequest): Promise<Holding> {
    const [row] = await this.deps.db
      .insert(investmentHolding)
      .values({
        memberId,
        name: fields.name,
        stockCode: fields.stockCode ?? null,
        currency: storedCurrency(fields.currency ?? null),
      })
      .returning({ id: investmentHolding.id });
    return this.get(memberId, row!.id);
  }

  /**
   * Renames a holding or changes its code or currency. Becoming a local-currency holding needs whole
   * prices in all its trades; the holding is locked first, so no trade write slips in between.
   */
  async update(memberId: number, id: number, request: UpdateHoldingRequest): Promise<Holding> {
    const patch = request.currency === undefined ? request : { ...request, currency: storedCurrency(request.currency) };
    await this.deps.db.transaction(async (tx) => {
      const [locked] = await tx
        .select({ currency: investmentHolding.currency })
        .from(investmentHolding)
        .where(ownedBy(memberId, id))
        .for('update');
      if (!locked) throw new NotFoundError('holding');
      if (patch.currency === null && locked.currency !== null) await assertWholePrices(tx, memberId, id);
      const changes = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
      await tx
        .update(investmentHolding)
        .set({ ...changes, updatedAt: new Date() })
        .where(ownedBy(memberId, id));
    });
    return this.get(memberId, id);
  }

  /** Deletes a holding and its trades (the trades' key cascades). */
  async delete(memberId: number, id: number): Promise<void> {
    const deleted = await this.deps.db
      .delete(investmentHolding)
      .where(ownedBy(memberId, id))
      .returning({ id: investmentHolding.id });
    if (deleted.length === 0) throw new NotFoundError('holding');
  }

  /** The member's holdings; the codes whose quote is due are refreshed (by whoever wins each claim). */
  private async withFreshQuotes(memberId: number): Promise<HoldingRow[]> {
    const rows: ListedHolding[] = await this.listQuery.execute({ memberId });
    const due = rows.filter((row) => row.stockCode !== null && this.deps.quotes.isDue(row.quoteAttemptedAt));
    if (due.length === 0) return rows;
    const refreshed = await this.deps.quotes.refresh(due.map((row) => row.stockCode!));
    return rows.map((row) => {
      const quote = row.stockCode === null ? undefined : refreshed.get(row.stockCode);
      return quote ? { ...row, quotePrice: quote.price, quoteFetchedAt: quote.fetchedAt } : row;
    });
  }
}
