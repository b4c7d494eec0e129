import { accountEntry } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';

// Issue 17 item 9: an instant naming a day that does not exist used to roll over (2026-02-30 → March 2).
const IMPOSSIBLE = ['2026-02-30T10:00:00Z', '2026-11-31T10:00:00Z', '0000-01-01T00:00:00Z'];
const TEXT = '[Web발신]\n신한카드(1054)승인 김*수 12,500원(일시불)05/20 08:30 스타벅스 강남점 누적1,960,854원';

describe('impossible instants answer 400 VALIDATION_FAILED', () => {
  test('a card notification’s receivedAt', async ({ app, premium }) => {
    for (const receivedAt of IMPOSSIBLE) {
      const problem = problemOf(
        await premium.api.ledger.entries.notification({ body: { text: TEXT, receivedAt } }),
        400,
        'VALIDATION_FAILED',
      );
      expect(problem.errors?.map((e) => e.path)).toEqual(['body.receivedAt']);
      problemOf(await premium.api.ledger.entries.parse({ body: { text: TEXT, receivedAt } }), 400, 'VALIDATION_FAILED');
    }
    expect(await app.db.select().from(accountEntry).where(eq(accountEntry.memberId, premium.id))).toEqual([]);
    // A real instant still goes through.
    bodyOf(await premium.api.ledger.entries.parse({ body: { text: TEXT, receivedAt: '2026-02-28T10:00:00Z' } }), 200);
  });

  test('a restore’s exportedAt', async ({ premium }) => {
    for (const exportedAt of IMPOSSIBLE) {
      problemOf(
        await premium.api.ledger.backup.restore({ body: { exportedAt, tags: [{ name: 'x' }] } }),
        400,
        'VALIDATION_FAILED',
      );
    }
    bodyOf(
      await premium.api.ledger.backup.restore({ body: { exportedAt: '2024-02-29T00:00:00Z', tags: [{ name: 'x' }] } }),
      200,
    );
  });
});
