import { type Database, DatabaseAcquireTimeoutError, type ReadSessionAttrs } from '@nestegg/db';
import type { FastifyBaseLogger } from 'fastify';
import type postgres from 'postgres';
import type { RedisClient } from './redis.js';

/**
 * Read replicas (decisions DB20–DB26): which replica, if any, may serve a request's reads.
 *
 * - `lag-tolerant` reads go to a replica that is up and within `DATABASE_READ_MAX_LAG_MS`.
 * - `read-your-writes` reads go to one only when it has also replayed the member's last write (its WAL position,
 *   stored after each successful write of the member for a little longer than the lag limit), else to the primary.
 *
 * Each replica is asked for its position and lag every `DATABASE_READ_PROBE_INTERVAL_MS` (never per request); a
 * replica that does not answer, is further behind than the limit, or is no standby when only standbys will do is
 * skipped, said once per change of state in the log, and counted per request in the fallback metric.
 */
export type ReadConsistency = 'lag-tolerant' | 'read-your-writes';

/** Why a read that could have gone to a replica went to the primary (`db_read_replica_fallbacks_total{reason}`). */
export type FallbackReason =
  /** No replica answered its last probe (down, unreachable, or its probe is overdue). */
  | 'unavailable'
  /** Every replica that answers is further behind than `DATABASE_READ_MAX_LAG_MS`. */
  | 'lagging'
  /** With `target_session_attrs=standby`: the replicas that answer are no longer standbys (promoted). */
  | 'not_standby'
  /** A read-your-writes read: no usable replica has replayed the member's last write yet. */
  | 'not_replayed'
  /** A read-your-writes read: the member's last write position could not be read (Redis failed). */
  | 'position_unknown'
  /** The replica's pool had no connection free within `DATABASE_ACQUIRE_TIMEOUT_MS`: that statement ran on the primary. */
  | 'busy';

/** A WAL position (`pg_lsn`) as a number: `X/Y` is X·2³² + Y. */
export function lsnOf(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** Fixed width, so that Redis compares two positions as strings. */
const lsnKeyValue = (lsn: bigint) => lsn.toString(16).padStart(16, '0');

/** Each member's last write position, for a short while (a little longer than the lag limit: DB24). */
export interface WritePositions {
  /** Keeps `lsn` unless a later position is already kept; either way for `ttlMs` from now. */
  record(memberId: number, lsn: bigint, ttlMs: number): Promise<void>;
  /** The position kept, or null when none is (never wrote, or longer ago than the TTL). */
  last(memberId: number): Promise<bigint | null>;
}

/** KEYS: the member's key. ARGV: position (16 hex digits), TTL ms. Keeps the later of two positions. */
const RECORD_SCRIPT = `
local kept = redis.call('GET', KEYS[1])
if kept and kept >= ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

/** In Redis (one server or a cluster), so that every api replica sees a member's writes (decision DB24). */
export class RedisWritePositions implements WritePositions {
  constructor(private readonly redis: RedisClient) {}

  private key = (memberId: number) => `write-lsn:{${memberId}}`;

  async record(memberId: number, lsn: bigint, ttlMs: number): Promise<void> {
    await this.redis.eval(RECORD_SCRIPT, 1, this.key(memberId), lsnKeyValue(lsn), Math.ceil(ttlMs));
  }

  async last(memberId: number): Promise<bigint | null> {
    const kept = await this.redis.get(this.key(memberId));
    return kept ? BigInt(`0x${kept}`) : null;
  }
}

/** Without Redis (one api instance): in this process, pruned as it goes. */
export class MemoryWritePositions implements WritePositions {
  private readonly positions = new Map<number, { lsn: bigint; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async record(memberId: number, lsn: bigint, ttlMs: number): Promise<void> {
    const kept = this.positions.get(memberId);
    const now = this.now();
    if (this.positions.size > 10_000) {
      for (const [id, entry] of this.positions) if (entry.until <= now) this.positions.delete(id);
    }
    const later = kept && kept.until > now && kept.lsn > lsn ? kept.lsn : lsn;
    this.positions.set(memberId, { lsn: later, until: now + ttlMs });
  }

  async last(memberId: number): Promise<bigint | null> {
    const kept = this.positions.get(memberId);
    return kept && kept.until > this.now() ? kept.lsn : null;
  }
}

/** One replica: its pool (a host of `DATABASE_READ_URL`) and its raw client for the probe. */
export interface ReplicaPool {
  /** `host:port`, as logs and metrics name it. */
  name: string;
  db: Database;
  sql: postgres.Sql;
}

/** What the last probe of a replica found. */
interface ReplicaState {
  /** `ok`, or why it serves nothing now (`unknown` until its first probe). */
  condition: 'unknown' | 'ok' | 'unavailable' | 'lagging' | 'not_standby';
  inRecovery: boolean;
  /** Replayed up to here (a promoted host: its current position). */
  replayed: bigint;
  lagMs: number;
  lagBytes: number;
  /** When the last probe answered (ms since the epoch); 0 before the first. */
  answeredAt: number;
  /** The error of the last failed probe, for the log. */
  error?: string;
}

export interface ReadReplicaMetrics {
  fallback(reason: FallbackReason): void;
  routed(target: 'replica' | 'primary', consistency: ReadConsistency): void;
  /** Called at each probe with every replica's latest state. */
  state(replica: string, state: { up: boolean; lagSeconds: number; lagBytes: number }): void;
}

export interface ReadReplicasDeps {
  replicas: ReplicaPool[];
  /**
   * The primary's client as the services use it (its gate bounds the wait for a connection, FO32): where a member's
   * write position is read after the write.
   */
  primary: Pick<postgres.Sql, 'unsafe'>;
  /** The primary's raw client: the primary's position of each probe round (kept out of the pool's operation metrics). */
  primaryProbe: Pick<postgres.Sql, 'unsafe'>;
  positions: WritePositions;
  targetSessionAttrs: ReadSessionAttrs;
  maxLagMs: number;
  probeIntervalMs: number;
  logger: FastifyBaseLogger;
  metrics: ReadReplicaMetrics;
  now?: () => number;
}

/** Longest a probe may take before the replica counts as unavailable. */
const PROBE_TIMEOUT_MS = 2000;

/** A replica's state in one statement; a promoted host reports its own current position. */
const PROBE_SQL = `select pg_is_in_recovery() as in_recovery,
  (case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_lsn() end)::text as replayed`;

/** `run` or, past `ms`, an error. */
async function within<T>(ms: number, run: () => PromiseLike<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      run(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export class ReadReplicas {
  private readonly states: ReplicaState[];
  /**
   * The primary's WAL position at each probe round, oldest first, over a little more than the lag limit: a replica's
   * lag is how long ago the primary reached the first position it has not replayed (DB23).
   */
  private readonly primaryPositions: Array<{ lsn: bigint; at: number }> = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private next = 0;
  private readonly now: () => number;

  constructor(private readonly deps: ReadReplicasDeps) {
    this.now = deps.now ?? Date.now;
    this.states = deps.replicas.map(() => ({
      condition: 'unknown',
      inRecovery: true,
      replayed: 0n,
      lagMs: 0,
      lagBytes: 0,
      answeredAt: 0,
    }));
  }

  /** How long a member's write position is kept: past it, a replica that has not replayed it is lagging anyway. */
  get positionTtlMs(): number {
    return this.deps.maxLagMs + 2 * this.deps.probeIntervalMs + 1000;
  }

  /** Starts probing (the first probe at once); resolves after the first round so that reads can use replicas at once. */
  async start(): Promise<void> {
    await this.probeAll();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.probeAll().finally(() => this.schedule());
    }, this.deps.probeIntervalMs);
    this.timer.unref();
  }

  private async probeAll(): Promise<void> {
    const at = this.now();
    try {
      const [row] = await within(PROBE_TIMEOUT_MS, () =>
        this.deps.primaryProbe.unsafe('select pg_current_wal_lsn()::text as lsn'),
      );
      this.primaryPositions.push({ lsn: lsnOf((row as unknown as { lsn: string }).lsn), at });
    } catch {
      // The primary is away: the positions kept stand, and a replica that has not replayed them ages past the limit.
    }
    const keepSince = at - this.deps.maxLagMs - 10 * this.deps.probeIntervalMs;
    while (this.primaryPositions.length > 1 && this.primaryPositions[0]!.at < keepSince) this.primaryPositions.shift();
    await Promise.all(this.deps.replicas.map((replica, index) => this.probe(replica, index)));
  }

  /** How far behind the primary a replica that replayed up to `replayed` is, in time and in bytes of WAL. */
  private lagOf(replayed: bigint): { ms: number; bytes: number } {
    const latest = this.primaryPositions.at(-1);
    if (!latest || replayed >= latest.lsn) return { ms: 0, bytes: 0 };
    const first = this.primaryPositions.find((position) => position.lsn > replayed)!;
    return { ms: this.now() - first.at, bytes: Number(latest.lsn - replayed) };
  }

  private async probe(replica: ReplicaPool, index: number): Promise<void> {
    const state = this.states[index]!;
    const before = state.condition;
    try {
      const rows = await within(PROBE_TIMEOUT_MS, () => replica.sql.unsafe(PROBE_SQL));
      if (this.stopped) return;
      const row = rows[0] as unknown as { in_recovery: boolean; replayed: string | null };
      state.inRecovery = row.in_recovery;
      state.replayed = row.replayed ? lsnOf(row.replayed) : 0n;
      const lag = this.lagOf(state.replayed);
      state.lagMs = lag.ms;
      state.lagBytes = lag.bytes;
      state.answeredAt = this.now();
      state.error = undefined;
      state.condition =
        state.lagMs > this.deps.maxLagMs
          ? 'lagging'
          : !state.inRecovery && this.deps.targetSessionAttrs === 'standby'
            ? 'not_standby'
            : 'ok';
    } catch (error) {
      // Closing the pools at shutdown fails the probe in flight: nothing to say then.
      if (this.stopped) return;
      state.condition = 'unavailable';
      state.error = error instanceof Error ? error.message : String(error);
    }
    this.deps.metrics.state(replica.name, {
      up: state.condition !== 'unavailable',
      lagSeconds: state.lagMs / 1000,
      lagBytes: state.lagBytes,
    });
    if (state.condition !== before) this.logChange(replica.name, state);
  }

  /** Once per change of state, never per request (DB25). */
  private logChange(name: string, state: ReplicaState): void {
    const fields = { replica: name, lagMs: Math.round(state.lagMs), lagBytes: state.lagBytes };
    if (state.condition === 'ok') {
      this.deps.logger.info(fields, `read replica ${name} serves reads`);
    } else if (state.condition === 'unavailable') {
      this.deps.logger.warn(
        { ...fields, reason: state.error },
        `read replica ${name} is unavailable; its reads go to the primary`,
      );
    } else if (state.condition === 'lagging') {
      this.deps.logger.warn(
        { ...fields, maxLagMs: this.deps.maxLagMs },
        `read replica ${name} lags behind the limit; its reads go to the primary`,
      );
    } else {
      this.deps.logger.warn(fields, `read replica ${name} is no standby; its reads go to the primary`);
    }
  }

  /** The replicas that may serve a read now, with the reason none does. */
  private usable(): { usable: number[]; reason: FallbackReason } {
    const now = this.now();
    // A replica whose probe has not answered for a while is as good as down, whatever it said last.
    const overdue = Math.max(PROBE_TIMEOUT_MS, 5 * this.deps.probeIntervalMs) + this.deps.probeIntervalMs;
    let usable: number[] = [];
    let reason: FallbackReason = 'unavailable';
    this.states.forEach((state, index) => {
      if (state.condition === 'ok' && now - state.answeredAt <= overdue) usable.push(index);
      else if (
        (state.condition === 'lagging' || state.condition === 'not_standby') &&
        (state.answeredAt === 0 || now - state.answeredAt <= overdue) &&
        reason === 'unavailable'
      ) {
        reason = state.condition;
      }
    });
    if (this.deps.targetSessionAttrs === 'prefer-standby' && usable.some((index) => this.states[index]!.inRecovery)) {
      usable = usable.filter((index) => this.states[index]!.inRecovery);
    }
    return { usable, reason };
  }

  /**
   * Where this request's reads go: a replica's database, or undefined for the primary. `memberId` is the signed-in
   * member of a read-your-writes read (null: anonymous, which is lag-tolerant).
   */
  async choose(consistency: ReadConsistency, memberId: number | null): Promise<Database | undefined> {
    const { usable, reason } = this.usable();
    if (usable.length === 0) return this.fallBack(reason, consistency);
    let candidates = usable;
    if (consistency === 'read-your-writes' && memberId !== null) {
      let written: bigint | null;
      try {
        written = await this.deps.positions.last(memberId);
      } catch {
        return this.fallBack('position_unknown', consistency);
      }
      if (written !== null) {
        const position = written;
        candidates = usable.filter((index) => this.states[index]!.replayed >= position);
        if (candidates.length === 0) return this.fallBack('not_replayed', consistency);
      }
    }
    const index = candidates[this.next++ % candidates.length]!;
    this.deps.metrics.routed('replica', consistency);
    return this.deps.replicas[index]!.db;
  }

  /**
   * A statement sent to `replica` failed for want of it and ran again on the primary (`routedReader`): the replica
   * counts as unavailable from now until its next probe answers, so the requests after this one skip it at once.
   */
  replicaFailed(replica: Database, error: unknown): void {
    const index = this.deps.replicas.findIndex((pool) => pool.db === replica);
    const state = this.states[index];
    if (!state) return;
    // A full pool is load, not an outage: this statement moved, the replica stays in use.
    if (error instanceof DatabaseAcquireTimeoutError) {
      this.deps.metrics.fallback('busy');
      return;
    }
    this.deps.metrics.fallback('unavailable');
    if (state.condition === 'unavailable') return;
    state.condition = 'unavailable';
    state.error = error instanceof Error ? error.message : String(error);
    this.deps.metrics.state(this.deps.replicas[index]!.name, { up: false, lagSeconds: 0, lagBytes: 0 });
    this.logChange(this.deps.replicas[index]!.name, state);
  }

  private fallBack(reason: FallbackReason, consistency: ReadConsistency): undefined {
    this.deps.metrics.fallback(reason);
    this.deps.metrics.routed('primary', consistency);
    return undefined;
  }

  /**
   * After a member's successful write (its transaction committed): keeps the primary's WAL position, which is at or
   * past the write's commit record, under the member. A failure is logged and swallowed: the write stands.
   */
  async recordWrite(memberId: number): Promise<void> {
    try {
      const [row] = await this.deps.primary.unsafe('select pg_current_wal_lsn()::text as lsn');
      await this.deps.positions.record(memberId, lsnOf((row as unknown as { lsn: string }).lsn), this.positionTtlMs);
    } catch (error) {
      this.deps.logger.warn({ err: error, memberId }, 'could not record a write position; reads may lag it');
    }
  }
}
