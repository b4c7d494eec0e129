/**
 * patches/drizzle-orm@0.45.4.patch (decision P27): `mapResultRow` works out a select's decoders, paths and table
 * names once per fields array instead of once per row and column. Its answers must stay the original's, joins'
 * nulling included, and the work must really happen once, in both builds the apps can load.
 */
import { createRequire } from 'node:module';
import { eq, sql } from 'drizzle-orm';
import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/postgres-js';
import * as utilsEsm from 'drizzle-orm/utils';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** `mapResultRow` is internal to drizzle, so its type definitions leave it out. */
interface RowMapper {
  mapResultRow(fields: { path: string[]; field: unknown }[], row: unknown[]): Record<string, unknown>;
}
const utilsCjs = createRequire(import.meta.url)('drizzle-orm/utils') as RowMapper;
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

// Temporary tables: found before any table of the same name, and gone with the connection.
const household = pgTable('household', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
});
const pet = pgTable('pet', {
  id: integer('id').primaryKey(),
  householdId: integer('household_id').notNull(),
  name: text('name'),
});

describe('the patched drizzle row mapper', () => {
  // One connection, so the temporary tables stay visible to every statement.
  const client = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const db = drizzle(client);

  beforeAll(async () => {
    await client`create temporary table household (id int primary key, name text not null, created_at timestamptz not null)`;
    await client`create temporary table pet (id int primary key, household_id int not null, name text)`;
    await client`insert into household values (1, 'Kim', '2026-01-02T03:04:05.678Z'), (2, 'Lee', '2026-02-03T04:05:06.789Z')`;
    await client`insert into pet values (10, 1, 'Tofu'), (11, 1, null)`;
  });
  afterAll(() => client.end());

  it('maps a left join as the original: a missing right side is null, a null column of a found row is not', async () => {
    const joined = db
      .select({ household, pet })
      .from(household)
      .leftJoin(pet, eq(pet.householdId, household.id))
      .orderBy(household.id, pet.id)
      .prepare('orm_patch_join');
    const kim = { id: 1, name: 'Kim', createdAt: new Date('2026-01-02T03:04:05.678Z') };
    const expected = [
      { household: kim, pet: { id: 10, householdId: 1, name: 'Tofu' } },
      { household: kim, pet: { id: 11, householdId: 1, name: null } },
      { household: { id: 2, name: 'Lee', createdAt: new Date('2026-02-03T04:05:06.789Z') }, pet: null },
    ];
    // Twice: the second run maps through the fields the first one worked out.
    expect(await joined.execute()).toEqual(expected);
    expect(await joined.execute()).toEqual(expected);
  });

  it('maps nested paths, sql decoders and identity columns', async () => {
    const rows = await db
      .select({
        id: household.id,
        about: {
          name: household.name,
          pets: sql`(select count(*) from pet where pet.household_id = household.id)`.mapWith(Number),
        },
        label: sql<string>`upper(${household.name})`,
      })
      .from(household)
      .orderBy(household.id);
    expect(rows).toEqual([
      { id: 1, about: { name: 'Kim', pets: 2 }, label: 'KIM' },
      { id: 2, about: { name: 'Lee', pets: 0 }, label: 'LEE' },
    ]);
  });

  it.each([
    ['import', utilsEsm as unknown as RowMapper],
    ['require', utilsCjs],
  ])('works out a fields array once, however many rows it maps (%s)', (_build, utils) => {
    let decoderReads = 0;
    const field = sql`x`.mapWith(Number);
    const decoder = (field as unknown as { decoder: unknown }).decoder;
    Object.defineProperty(field, 'decoder', {
      get: () => {
        decoderReads += 1;
        return decoder;
      },
    });
    const fields = [{ path: ['x'], field }];
    const mapped = ['1', '2', '3'].map((raw) => utils.mapResultRow(fields, [raw]));
    expect(mapped).toEqual([{ x: 1 }, { x: 2 }, { x: 3 }]);
    expect(decoderReads).toBe(1);
  });
});
