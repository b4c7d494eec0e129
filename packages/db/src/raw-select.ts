import { fillPlaceholders, type Query, SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from './client';

/** A select built with drizzle whose rows come back as the driver reads them: see `rawSelect`. */
export interface RawSelect<Row> {
  execute(values?: Record<string, unknown>): Promise<Row[]>;
  /**
   * The rows as the bytes PostgreSQL sent: each an array of its columns' text, in select order, undecoded (null
   * for NULL). For a column the api sends on as it came (JSON the statement wrote), which then costs no UTF-8
   * decoding into a string and no encoding back.
   */
  buffers(values?: Record<string, unknown>): Promise<(Buffer | null)[][]>;
}

const dialect = new PgDialect();

/**
 * Runs a drizzle-built select (a query builder, or an `sql` template with `sql.placeholder`s) with its text
 * worked out once, returning postgres.js's own row objects: keyed by column name (`display_name`), timestamps
 * as PostgreSQL's text (the client leaves their parsing to drizzle). Drizzle's prepared queries ask the driver
 * for arrays and build every row's object a second time, and `db.execute(sql…)` builds its text on every call;
 * for a list page that is most of what drizzle costs (decision P27). Through the same client as drizzle's
 * queries: prepared, gated, traced, and under an active commit hook alike.
 */
export function rawSelect<Row>(db: Database, query: SQL | { toSQL(): Query }): RawSelect<Row> {
  const { sql: text, params } = query instanceof SQL ? dialect.sqlToQuery(query) : query.toSQL();
  const run = (values: Record<string, unknown>) =>
    db.$client.unsafe(text, fillPlaceholders(params, values) as never[], { prepare: true });
  return {
    execute: (values = {}) => run(values) as unknown as Promise<Row[]>,
    buffers: (values = {}) => run(values).raw() as unknown as Promise<(Buffer | null)[][]>,
  };
}
