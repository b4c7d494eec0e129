import type { CreateTradeRequest, Trade, TradeListQuery, TradePage, UpdateTradeRequest } from '@nestegg/contract';
import { type Database, type DbOrTx, investmentHolding, investmentTrade } from '@nestegg/db';
import { hasFraction, replayTrades } from '@nestegg/domain';
import { and, asc, count, desc, eq, gte, inArray, lte, type SQL } from 'drizzle-orm';
import { ConflictError, NotFoundError, ValidationFailedError } from '../../../lib/errors.js';
import { toTrade } from './holding.view.js';

export interface TradesDeps {
  db: Database;
}

const columns = {
  id: investmentTrade.id,
  holdingId: investmentTrade.holdingId,
  side: investmentTrade.side,
  quantity: investmentTrade.quantity,
  price: investmentTrade.price,
  fee: investmentTrade.fee,
  tradedAt: investmentTrade.tradedAt,
  createdAt: investmentTrade.createdAt,
  updatedAt: investmentTrade.updatedAt,
};

/** The fields a client sets. */
const valueColumns = {
  holdingId: investmentTrade.holdingId,
  side: investmentTrade.side,
  quantity: investmentTrade.quantity,
  price: investmentTrade.price,
  fee: investmentTrade.fee,
  tradedAt: investmentTrade.tradedAt,
};

interface LockedHolding {
  id: number;
  name: string;
  currency: string | null;
}

type TradeValues = Pick<Trade, 'side' | 'quantity' | 'price' | 'fee' | 'tradedAt'> & { holdingId: number };

/** A trade read before its holding was locked may have moved since; the write then starts over. */
const MAX_ATTEMPTS = 3;

const tradeOwnedBy = (memberId: number, id: number): SQL =>
  and(eq(investmentTrade.memberId, memberId), eq(investmentTrade.id, id))!;

/** Locks the member's holdings in id order (so two writers never wait on each other crosswise). */
async function lockHoldings(tx: DbOrTx, memberId: number, ids: number[]): Promise<Map<number, LockedHolding>> {
  const rows = await tx
    .select({ id: investmentHolding.id, name: investmentHolding.name, currency: investmentHolding.currency })
    .from(investmentHolding)
    .where(and(eq(investmentHolding.memberId, memberId), inArray(investmentHolding.id, ids)))
    .orderBy(asc(investmentHolding.id))
    .for('update');
  return new Map(rows.map((row) => [row.id, row]));
}

/** A local-currency holding takes whole prices and fees only. */
function assertPricesFit(holding: LockedHolding, values: Pick<TradeValues, 'price' | 'fee'>): void {
  if (holding.currency !== null) return;
  const errors = (['price', 'fee'] as const)
    .filter((field) => hasFraction(values[field]))
    .map((field) => ({ path: `body.${field}`, message: 'a local-currency holding takes whole units' }));
  if (errors.length > 0) throw new ValidationFailedError(errors);
}

/**
 * Replays the holding's trades in time order and stores where they end (quantity, cost basis, realized
 * profit); 409 `HOLDING_QUANTITY_NEGATIVE` when a sell would take more than is held at its point in time.
 */
async function replayAndStore(tx: DbOrTx, memberId: number, holding: LockedHolding): Promise<void> {
  const trades = await tx
    .select(columns)
    .from(investmentTrade)
    .where(and(eq(investmentTrade.memberId, memberId), eq(investmentTrade.holdingId, holding.id)))
    .orderBy(asc(investmentTrade.tradedAt), asc(investmentTrade.id));
  const outcome = replayTrades(trades);
  if (!outcome.ok) {
    const { trade, shortBy } = outcome;
    throw new ConflictError(
      'HOLDING_QUANTITY_NEGATIVE',
      `"${holding.name}" would hold ${shortBy} too few to sell ${trade.quantity} on ${trade.tradedAt}.`,
    );
  }
  await tx
    .update(investmentHolding)
    .set({
      quantity: outcome.position.quantity,
      costBasis: outcome.position.cost,
      realizedProfit: outcome.position.realizedProfit,
      updatedAt: new Date(),
    })
    .where(and(eq(investmentHolding.memberId, memberId), eq(investmentHolding.id, holding.id)));
}

/** The member's filters of the trade list. */
function listFilter(memberId: number, query: TradeListQuery): SQL {
  return and(
    eq(investmentTrade.memberId, memberId),
    query.holdingId === undefined ? undefined : eq(investmentTrade.holdingId, query.holdingId),
    query.from === undefined ? undefined : gte(investmentTrade.tradedAt, query.from),
    query.to === undefined ? undefined : lte(investmentTrade.tradedAt, query.to),
  )!;
}

/**
 * Investment trades (`/api/account/trades`), over explicit dependencies. Every write locks the holdings
 * it touches (`FOR UPDATE`, in id order), writes, then replays each touched holding's trades in time
 * order in the same transaction: a write that would make a quantity negative at any point is rolled back
 * with 409, and two writes on one holding run one after the other, so they cannot both pass the check.
 */
export class TradesService {
  constructor(private readonly deps: TradesDeps) {}

  /** Trades, newest first; a `holdingId` that is not the member's → 404. */
  async list(memberId: number, query: TradeListQuery): Promise<TradePage> {
    const { db } = this.deps;
    if (query.holdingId !== undefined) await this.assertHoldingExists(memberId, query.holdingId);
    const where = listFilter(memberId, query);
    const [rows, [counted]] = await Promise.all([
      db
        .select(columns)
        .from(investmentTrade)
        .where(where)
        .orderBy(desc(investmentTrade.tradedAt), desc(investmentTrade.id))
        .limit(query.size)
        .offset((query.page - 1) * query.size),
      db.select({ total: count() }).from(investmentTrade).where(where),
    ]);
    return { items: rows.map(toTrade), page: query.page, size: query.size, total: counted?.total ?? 0 };
  }

  /** Records a trade; 404 for a holding that is not the member's, 409 when the replay goes negative. */
  create(memberId: number, values: CreateTradeRequest): Promise<Trade> {
    return this.deps.db.transaction(async (tx) => {
      const holding = (await lockHoldings(tx, memberId, [values.holdingId])).get(values.holdingId);
      if (!holding) throw new NotFoundError('holding');
      assertPricesFit(holding, values);
      const [row] = await tx
        .insert(investmentTrade)
        .values({ memberId, ...values })
        .returning(columns);
      await replayAndStore(tx, memberId, holding);
      return toTrade(row!);
    });
  }

  /**
   * Edits a trade (omitted fields are kept), possibly moving it to another holding: both holdings are
   * locked and replayed.
   */
  async update(memberId: number, id: number, patch: UpdateTradeRequest): Promise<Trade> {
    return this.withTradeLocked(memberId, id, patch.holdingId, async (tx, current, holdings) => {
      const merged: TradeValues = { ...current, ...definedFields(patch) };
      const target = holdings.get(merged.holdingId);
      if (!target) throw new NotFoundError('holding');
      assertPricesFit(target, merged);
      const [row] = await tx
        .update(investmentTrade)
        .set({ ...merged, updatedAt: new Date() })
        .where(tradeOwnedBy(memberId, id))
        .returning(columns);
      for (const holding of holdings.values()) await replayAndStore(tx, memberId, holding);
      return toTrade(row!);
    });
  }

  /** Deletes a trade; 409 when its holding's replay would then go negative (a buy that later sells need). */
  async delete(memberId: number, id: number): Promise<void> {
    await this.withTradeLocked(memberId, id, undefined, async (tx, current, holdings) => {
      await tx.delete(investmentTrade).where(tradeOwnedBy(memberId, id));
      await replayAndStore(tx, memberId, holdings.get(current.holdingId)!);
    });
  }

  private async assertHoldingExists(memberId: number, holdingId: number): Promise<void> {
    const [found] = await this.deps.db
      .select({ id: investmentHolding.id })
      .from(investmentHolding)
      .where(and(eq(investmentHolding.memberId, memberId), eq(investmentHolding.id, holdingId)));
    if (!found) throw new NotFoundError('holding');
  }

  /**
   * Runs `work` in a transaction holding the locks of the trade's holding and of `otherHoldingId` (in id
   * order), with the trade as it is under those locks. A trade moved by someone else between the first
   * read and the locks is read again.
   */
  private async withTradeLocked<T>(
    memberId: number,
    id: number,
    otherHoldingId: number | undefined,
    work: (tx: DbOrTx, current: TradeValues, holdings: Map<number, LockedHolding>) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await this.deps.db.transaction(async (tx) => {
        const before = await this.readTrade(tx, memberId, id);
        const ids = [...new Set([before.holdingId, otherHoldingId ?? before.holdingId])];
        const holdings = await lockHoldings(tx, memberId, ids);
        const current = await this.readTrade(tx, memberId, id);
        if (current.holdingId !== before.holdingId) return { moved: true as const };
        return { moved: false as const, result: await work(tx, current, holdings) };
      });
      if (!outcome.moved) return outcome.result;
      if (attempt >= MAX_ATTEMPTS) throw new ConflictError('CONFLICT', 'The trade is being changed. Try again.');
    }
  }

  private async readTrade(tx: DbOrTx, memberId: number, id: number): Promise<TradeValues> {
    const [row] = await tx.select(valueColumns).from(investmentTrade).where(tradeOwnedBy(memberId, id));
    if (!row) throw new NotFoundError('trade');
    return row;
  }
}

/** The fields a partial update sets (undefined = keep). */
function definedFields<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}
