/**
 * Issue 38, "done when": every statement of the corpus (`packages/statements/corpus/<shape>/statement.*`) imported
 * through the api, committed, and imported again: the second import creates nothing; and a statement overlapping
 * entries made from card notifications confirms them instead of doubling them. A local exchange-rate provider
 * answers every past day (foreign rows without a won amount are converted at its rate).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { accountEntry } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { apiTest, type Caller } from '../../../test/fixtures.js';

const CORPUS = fileURLToPath(new URL('../../../../../../packages/statements/corpus/', import.meta.url));

/** Every corpus shape's statement file. */
const shapes = readdirSync(CORPUS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) => {
    const file = readdirSync(join(CORPUS, entry.name)).find((name) => name.startsWith('statement.'));
    return file ? [{ shape: entry.name, path: join(CORPUS, entry.name, file), name: file }] : [];
  });

/** The exchange-rate provider: 1 unit of any currency is 1,000 won (and the reverse), on any past day. */
const provider = createServer((request, response) => {
  const [, , , kind, base] = (request.url ?? '').split('/');
  const rate = (quote: string) => (quote === 'KRW' ? 1000 : base === 'KRW' ? 0.001 : 1);
  const body =
    kind === 'history'
      ? {
          result: 'success',
          conversion_rates: Object.fromEntries(
            ['KRW', 'USD', 'EUR', 'JPY', 'HUF', 'SEK', 'GBP'].map((q) => [q, rate(q)]),
          ),
        }
      : { result: 'success', conversion_rate: rate((request.url ?? '').split('/').at(-1) ?? '') };
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
});
await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => provider.close(() => resolve())));
const providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/`;

const test = apiTest({
  FX_API_URL: providerUrl,
  FX_API_KEY: 'k',
  IMPORT_DAILY_UPLOADS_FREE: '100',
  IMPORT_DAILY_UPLOADS_PREMIUM: '100',
});

async function importFile(caller: Caller, bytes: Buffer, name: string) {
  const preview = bodyOf(
    await caller.api.ledger.imports.upload({ body: { file: new File([new Uint8Array(bytes)], name) } }),
    201,
  );
  return bodyOf(await caller.api.ledger.imports.commit({ params: { id: preview.id } }), 200);
}

describe('the statement corpus through the api', () => {
  test('holds at least 12 shapes', () => {
    expect(shapes.length).toBeGreaterThanOrEqual(12);
  });

  test.for(shapes)(
    '$shape: imported twice, the second import creates nothing',
    async ({ path, name }, { app, free }) => {
      const bytes = readFileSync(path);
      const first = await importFile(free, bytes, name);
      expect(first.counts.NEW + first.counts.MATCHED + first.counts.CANCELLATION).toBeGreaterThan(0);
      const entries = await app.db
        .select({ id: accountEntry.id })
        .from(accountEntry)
        .where(eq(accountEntry.memberId, free.id));
      expect(entries.length).toBe(first.counts.NEW);
      const second = await importFile(free, bytes, name);
      expect(second.counts).toMatchObject({ NEW: 0, MATCHED: 0 });
      const after = await app.db
        .select({ id: accountEntry.id })
        .from(accountEntry)
        .where(eq(accountEntry.memberId, free.id));
      expect(after).toHaveLength(entries.length);
    },
  );

  test('a statement overlapping card-notification entries confirms them instead of doubling them', async ({
    app,
    premium,
  }) => {
    const wallet = bodyOf(
      await premium.api.ledger.wallets.create({ body: { name: '신한카드', type: 'CARD', cardCompany: '신한카드' } }),
      201,
    );
    const texts = [
      '[Web발신]\n신한카드(1234)승인 김*지 12,800원(일시불)05/14 12:31 스타벅스 강남R점 누적842,300원',
      '[Web발신]\n신한카드(1234)승인 김*지 54,300원(일시불)05/12 18:02 이마트 성수점 누적855,100원',
    ];
    for (const [at, text] of texts.entries()) {
      const receivedAt = at === 0 ? '2026-05-14T12:31:04+09:00' : '2026-05-12T18:02:09+09:00';
      const answer = await premium.api.ledger.entries.notification({ body: { text, receivedAt } });
      expect(answer.status).toBe(201);
    }
    const statement = [
      '이용일자,가맹점명,이용금액,승인번호',
      '2026-05-12,이마트 성수점,"54,300",70000001',
      '2026-05-14,스타벅스 강남R점,"12,800",70000002',
      '2026-05-15,GS25 성수역점,"1,500",70000003',
    ].join('\r\n');
    const preview = bodyOf(
      await premium.api.ledger.imports.upload({ body: { file: new File([statement], 'card.csv') } }),
      201,
    );
    const adjusted = bodyOf(
      await premium.api.ledger.imports.adjust({ params: { id: preview.id }, body: { accountId: wallet.id } }),
      200,
    );
    expect(adjusted.counts).toMatchObject({ MATCHED: 2, NEW: 1 });
    bodyOf(await premium.api.ledger.imports.commit({ params: { id: preview.id } }), 200);
    const entries = await app.db.select().from(accountEntry).where(eq(accountEntry.memberId, premium.id));
    expect(entries).toHaveLength(3);
    expect(entries.every((entry) => !entry.pending && entry.importKey !== null)).toBe(true);
    expect(bodyOf(await premium.api.ledger.entries.pendingCount(), 200)).toEqual({ count: 0 });
  });

  test('a foreign bank’s file that names no currency is read in the currency the member chooses, at the day’s rate', async ({
    app,
    free,
  }) => {
    const csv = [
      'Date,Description,Amount',
      '2026-03-02,Blue Bottle Coffee,-4.50',
      '2026-03-03,Trader Joes,-23.10',
      '',
    ].join('\n');
    const preview = bodyOf(await free.api.ledger.imports.upload({ body: { file: new File([csv], 'bank.csv') } }), 201);
    expect(preview).toMatchObject({ currency: 'KRW', counts: { INVALID: 2, NEW: 0 } });
    const dollars = bodyOf(
      await free.api.ledger.imports.adjust({ params: { id: preview.id }, body: { currency: 'USD' } }),
      200,
    );
    expect(dollars).toMatchObject({ currency: 'USD', counts: { NEW: 2, INVALID: 0 } });
    bodyOf(await free.api.ledger.imports.commit({ params: { id: preview.id } }), 200);
    const entries = await app.db
      .select()
      .from(accountEntry)
      .where(eq(accountEntry.memberId, free.id))
      .orderBy(accountEntry.entryDate);
    expect(entries.map((entry) => [entry.amount, entry.currency, entry.originalAmount, entry.exchangeRate])).toEqual([
      [4500, 'USD', '4.5000', '1000.0000000000'],
      [23100, 'USD', '23.1000', '1000.0000000000'],
    ]);
  });
});
