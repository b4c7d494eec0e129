/** How the driver hands a statement's rows over: objects by column name, arrays of values, or arrays of Buffers. */
export type RowShape = 'objects' | 'values' | 'raw';

/** What the wrappers use of a postgres.js pending query: awaiting it once, after `.values()` or `.raw()` if asked. */
export interface PendingQuery extends PromiseLike<unknown> {
  values(): PromiseLike<unknown>;
  raw(): PromiseLike<unknown>;
}

/** The driver's pending query asked for rows of `shape`. */
export function inShape(pending: PendingQuery, shape: RowShape): PromiseLike<unknown> {
  if (shape === 'values') return pending.values();
  if (shape === 'raw') return pending.raw();
  return pending;
}

/**
 * A stand-in for the driver's lazy query: `start` runs once, when the query is first awaited, told the row
 * shape asked for before (drizzle asks for `.values()`, `rawSelect` for `.raw()`). The connection gate and the
 * tracing wrap statements with it.
 */
export function lazyQuery(start: (shape: RowShape) => Promise<unknown>): PendingQuery {
  let shape: RowShape = 'objects';
  let running: Promise<unknown> | null = null;
  const run = () => {
    running ??= start(shape);
    return running;
  };
  const pending = {
    values() {
      shape = 'values';
      return pending;
    },
    raw() {
      shape = 'raw';
      return pending;
    },
    // biome-ignore lint/suspicious/noThenProperty: a lazy thenable stands in for the driver's lazy query.
    then<A = unknown, B = never>(
      onFulfilled?: ((value: unknown) => A | PromiseLike<A>) | null,
      onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
    ) {
      return run().then(onFulfilled, onRejected);
    },
    catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null) {
      return run().catch(onRejected);
    },
  };
  return pending;
}
