import { describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';

/** Issue 36: a fresh installation has the default categories (decision A8), so the import is the only setup. */
describe('a fresh installation', () => {
  test('a new FREE member imports the defaults and records a first entry in 카페 with nothing else set up', async ({
    free,
  }) => {
    const imported = bodyOf(await free.api.ledger.categories.import(), 200);
    expect(imported.imported).toBeGreaterThan(40);
    expect(imported.skipped).toBe(0);
    const entry = bodyOf(
      await free.api.ledger.entries.create({
        body: { type: 'EXPENSE', amount: 12800, date: '2026-05-14', memo: '스타벅스 강남R점', category: '카페' },
      }),
      201,
    );
    expect(entry).toMatchObject({ category: '카페', amount: 12800, pending: false });
  });
});
