import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { test } from '../../../test/fixtures.js';
import { readsOf, runPrepared } from '../../../test/prepared-plan.js';
import { scatteredLedger } from './ledger.fixture.js';
import { groupedByCategory, topMerchantsStatement, trendStatement } from './statistics.service.js';

const SEEDED = 20_000;
const CONFIRMED_INDEX = 'Index Only Scan on account_entry via account_entry_member_confirmed_date_idx';

/** The statement prepared as the api prepares it, run ten times: its plan counts and the tables its plan reads. */
async function preparedReads(app: FastifyInstance, statement: SQL) {
  const query = new PgDialect().sqlToQuery(statement);
  const plan = await runPrepared(app, query.sql, query.params);
  return { custom: plan.customPlans, generic: plan.genericPlans, reads: readsOf(plan.nodes) };
}

describe(`statistics at ${SEEDED.toLocaleString('en-US')} entries, the member's scattered among the service's (plans on seeded data)`, () => {
  test("each statement reads the member's confirmed entries from the covering index alone, in one generic plan", async ({
    app,
    premium,
  }) => {
    await scatteredLedger(app, premium, SEEDED);
    const statements: [string, SQL][] = [
      ['trend of 12 months', trendStatement(premium.id, '2025-12-01', '2026-11-30')],
      ['a month by category', groupedByCategory(premium.id, '2026-10-01', '2026-10-31')],
      ['a year by category', groupedByCategory(premium.id, '2026-01-01', '2026-12-31')],
      [
        'top merchants of a month',
        topMerchantsStatement(premium.id, { from: '2026-10-01', to: '2026-10-31', type: 'EXPENSE', limit: 10 }),
      ],
    ];
    for (const [name, statement] of statements) {
      const plan = await preparedReads(app, statement);
      // Decision LP11: no heap page is read, however the member's rows lie among the service's.
      const entryReads = plan.reads.filter((read) => / on account_entry( |$)/.test(read));
      expect({ name, ...plan, reads: entryReads }).toEqual({ name, custom: 5, generic: 5, reads: [CONFIRMED_INDEX] });
    }
  });
});
