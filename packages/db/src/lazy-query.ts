/** What drizzle uses of a postgres.js pending query: awaiting it once, or `.values()` before awaiting. */
export interface PendingQuery extends PromiseLike<unknown> {
  values(): PromiseLike<unknown>;
}

/**
 * A stand-in for the driver's lazy query: `start` runs once, when the query is first awaited, told whether
 * `.values()` was asked for before. The connection gate and the tracing wrap statements with it.
 */
export function lazyQuery(start: (asValues: boolean) => Promise<unknown>): PendingQuery {
  let asValues = false;
  let running: Promise<unknown> | null = null;
  const run = () => {
    running ??= start(asValues);
    return running;
  };
  const pending = {
    values() {
      asValues = true;
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
