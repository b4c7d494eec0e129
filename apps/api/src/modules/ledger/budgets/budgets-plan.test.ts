import { budget } from '@nestegg/db';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect } from 'vitest';
import { test } from '../../../test/fixtures.js';
import { readsOf, runPrepared } from '../../../test/prepared-plan.js';
import { categoryTree, scatteredLedger } from '../statistics/ledger.fixture.js';
import { listMonthStatement } from './monthly-budgets.js';

const SEEDED = 20_000;

describe(`the budgets of a month at ${SEEDED.toLocaleString('en-US')} entries, the member's scattered among the service's (plans on seeded data)`, () => {
  test("the month's spent reads the member's confirmed entries from the covering index alone, in one generic plan", async ({
    app,
    premium,
  }) => {
    await categoryTree(app, premium, { 식비: ['카페'], 교통: [], 쇼핑: [] });
    await app.db.insert(budget).values(
      ['식비', '카페', '교통', '쇼핑'].map((category) => ({
        memberId: premium.id,
        category,
        year: 2026,
        month: 10,
        amount: 100_000,
      })),
    );
    await scatteredLedger(app, premium, SEEDED);

    const query = new PgDialect().sqlToQuery(listMonthStatement(premium.id, 2026, 10));
    const plan = await runPrepared(app, query.sql, query.params);
    expect({ custom: plan.customPlans, generic: plan.genericPlans }).toEqual({ custom: 5, generic: 5 });
    // Decision LP11: no heap page of account_entry is read, however the member's rows lie among the service's.
    expect(readsOf(plan.nodes).filter((read) => / on account_entry( |$)/.test(read))).toEqual([
      'Index Only Scan on account_entry via account_entry_member_confirmed_date_idx',
    ]);
  });
});
