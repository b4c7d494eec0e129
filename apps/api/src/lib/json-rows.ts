import { type Column, getTableColumns, type SQL, sql, type Table } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/**
 * Rows of several tables fetched in one statement as JSON, then read back into the exact objects a
 * drizzle select returns, so each domain's own view function renders them. Numerics travel as text:
 * JSON numbers would pass through a float and lose digits of rates and decimal amounts.
 */
export function jsonObjectOf(table: PgTable, alias: string): SQL {
  const pairs = Object.entries(getTableColumns(table)).flatMap(([property, column]) => [
    sql.raw(`'${property}'`),
    columnAsJson(alias, column),
  ]);
  return sql`json_build_object(${sql.join(pairs, sql`, `)})`;
}

function columnAsJson(alias: string, column: Column): SQL {
  const reference = sql.raw(`"${alias}"."${column.name}"`);
  return column.columnType === 'PgNumeric' ? sql`${reference}::text` : reference;
}

/** A row built by `jsonObjectOf`, as drizzle would have returned it (dates as `Date`, and so on). */
export function rowFromJson<T extends Table>(table: T, json: Record<string, unknown>): T['$inferSelect'] {
  const row: Record<string, unknown> = {};
  for (const [property, column] of Object.entries(getTableColumns(table))) {
    const value = json[property];
    row[property] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as T['$inferSelect'];
}
