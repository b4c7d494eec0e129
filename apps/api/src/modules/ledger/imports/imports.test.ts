import type { ImportRow } from '@nestegg/contract';
import { accountEntry, statementImport } from '@nestegg/db';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { apiTest, type Caller } from '../../../test/fixtures.js';

const test = apiTest({ IMPORT_DAILY_UPLOADS_FREE: '20' });

const HEADER = '이용일자,가맹점명,이용금액,승인번호';

/** A card statement as a Korean card site writes it (UTF-8 with a BOM here). */
const cardCsv = (...rows: string[]) => `\uFEFF${[HEADER, ...rows].join('\r\n')}\r\n`;

const file = (text: string, name = 'card.csv') =>
  new File([new TextEncoder().encode(text)], name, { type: 'text/csv' });

async function upload(caller: Caller, text: string, name?: string) {
  return bodyOf(await caller.api.ledger.imports.upload({ body: { file: file(text, name) } }), 201);
}

async function allRows(caller: Caller, id: number): Promise<ImportRow[]> {
  return bodyOf(await caller.api.ledger.imports.rows({ params: { id }, query: { size: 500 } }), 200).items;
}

async function entriesOf(app: FastifyInstance, memberId: number) {
  return app.db
    .select()
    .from(accountEntry)
    .where(eq(accountEntry.memberId, memberId))
    .orderBy(accountEntry.entryDate, accountEntry.id);
}

describe('statement import: preview and commit', () => {
  test('a card CSV becomes a preview of every row, and its commit creates the entries once', async ({ app, free }) => {
    const text = cardCsv(
      '2026-05-12,이마트 성수점,"54,300",10000001',
      '2026-05-14,스타벅스 강남R점,"12,800",10000002',
      '합계,,"67,100",',
    );
    const preview = await upload(free, text);
    expect(preview).toMatchObject({
      status: 'PREVIEW',
      format: 'CSV',
      encoding: 'UTF-8-BOM',
      header: ['이용일자', '가맹점명', '이용금액', '승인번호'],
      counts: { NEW: 2, SKIPPED: 1, DUPLICATE: 0 },
      rowCount: 3,
    });
    const rows = await allRows(free, preview.id);
    expect(rows.map((row) => [row.outcome, row.date, row.amount, row.description])).toEqual([
      ['NEW', '2026-05-12', 54300, '이마트 성수점'],
      ['NEW', '2026-05-14', 12800, '스타벅스 강남R점'],
      ['SKIPPED', null, null, null],
    ]);

    const committed = bodyOf(await free.api.ledger.imports.commit({ params: { id: preview.id } }), 200);
    expect(committed).toMatchObject({ status: 'COMMITTED', counts: { NEW: 2 } });
    expect(committed.undoableUntil).not.toBeNull();
    const entries = await entriesOf(app, free.id);
    expect(entries.map((entry) => [entry.type, entry.amount, entry.entryDate, entry.memo, entry.pending])).toEqual([
      ['EXPENSE', 54300, '2026-05-12', '이마트 성수점', false],
      ['EXPENSE', 12800, '2026-05-14', '스타벅스 강남R점', false],
    ]);
    // Committing again answers the committed import and creates nothing.
    bodyOf(await free.api.ledger.imports.commit({ params: { id: preview.id } }), 200);
    expect(await entriesOf(app, free.id)).toHaveLength(2);

    // The same file again: every row a duplicate of its entry, and its commit creates nothing.
    const again = await upload(free, text);
    expect(again.counts).toMatchObject({ NEW: 0, DUPLICATE: 2 });
    const duplicates = await allRows(free, again.id);
    expect(duplicates[0]).toMatchObject({ outcome: 'DUPLICATE', entryId: entries[0]!.id });
    bodyOf(await free.api.ledger.imports.commit({ params: { id: again.id } }), 200);
    expect(await entriesOf(app, free.id)).toHaveLength(2);
  });

  test('two identical purchases on one day are two entries; an overlapping later statement adds only its new rows', async ({
    app,
    free,
  }) => {
    const first = cardCsv('2026-05-14,GS25 성수역점,"1,500",', '2026-05-14,GS25 성수역점,"1,500",');
    bodyOf(await free.api.ledger.imports.commit({ params: { id: (await upload(free, first)).id } }), 200);
    expect(await entriesOf(app, free.id)).toHaveLength(2);
    const later = cardCsv(
      '2026-05-14,GS25 성수역점,"1,500",',
      '2026-05-14,GS25 성수역점,"1,500",',
      '2026-05-15,GS25 성수역점,"1,500",',
    );
    const overlap = await upload(free, later);
    expect(overlap.counts).toMatchObject({ NEW: 1, DUPLICATE: 2 });
    bodyOf(await free.api.ledger.imports.commit({ params: { id: overlap.id } }), 200);
    expect(await entriesOf(app, free.id)).toHaveLength(3);
  });

  test('an entry from a card notification is confirmed, not doubled; two equally good entries are shown, not merged', async ({
    app,
    free,
  }) => {
    const [pending] = await app.db
      .insert(accountEntry)
      .values({
        memberId: free.id,
        type: 'EXPENSE',
        amount: 12800,
        entryDate: '2026-05-14',
        memo: '스타벅스 강남R점',
        pending: true,
        notifKey: 'v1:test',
      })
      .returning();
    await app.db.insert(accountEntry).values([
      { memberId: free.id, type: 'EXPENSE', amount: 4500, entryDate: '2026-05-13', memo: '커피' },
      { memberId: free.id, type: 'EXPENSE', amount: 4500, entryDate: '2026-05-15', memo: '커피' },
    ]);
    const preview = await upload(
      free,
      cardCsv('2026-05-15,스타벅스 강남R점,"12,800",20000001', '2026-05-14,커피,"4,500",20000002'),
    );
    const [matched, ambiguous] = await allRows(free, preview.id);
    expect(matched).toMatchObject({ outcome: 'MATCHED', entryId: pending!.id });
    expect(matched!.reason).toContain('1 day apart');
    expect(ambiguous).toMatchObject({ outcome: 'NEW' });
    expect(ambiguous!.candidates).toHaveLength(2);

    const chosen = bodyOf(
      await free.api.ledger.imports.adjust({
        params: { id: preview.id },
        body: { matches: [{ row: 1, entryId: ambiguous!.candidates[1]! }] },
      }),
      200,
    );
    expect(chosen.counts).toMatchObject({ MATCHED: 2, NEW: 0 });
    bodyOf(await free.api.ledger.imports.commit({ params: { id: preview.id } }), 200);
    const entries = await entriesOf(app, free.id);
    expect(entries).toHaveLength(3);
    expect(entries.find((entry) => entry.id === pending!.id)).toMatchObject({ pending: false });
    expect(entries.filter((entry) => entry.importKey !== null)).toHaveLength(2);
  });
});

describe('statement import: cancellations', () => {
  test('a cancellation in the same file cancels its purchase (neither is created); a later one removes the entry', async ({
    app,
    free,
  }) => {
    const both = cardCsv('2026-05-10,쿠팡,"39,000",30000001', '2026-05-11,쿠팡,"-39,000",30000001');
    const preview = await upload(free, both);
    expect(preview.counts).toMatchObject({ CANCELLATION: 2, NEW: 0 });
    const [purchase, cancellation] = await allRows(free, preview.id);
    expect(cancellation).toMatchObject({ outcome: 'CANCELLATION', cancelsRow: purchase!.index, cancellation: true });
    bodyOf(await free.api.ledger.imports.commit({ params: { id: preview.id } }), 200);
    expect(await entriesOf(app, free.id)).toHaveLength(0);

    const bought = await upload(free, cardCsv('2026-05-12,배달의민족,"23,000",30000002'));
    bodyOf(await free.api.ledger.imports.commit({ params: { id: bought.id } }), 200);
    const [entry] = await entriesOf(app, free.id);
    const cancelled = await upload(
      free,
      cardCsv('2026-05-13,배달의민족,"-23,000",30000002', '2026-05-13,GS25,"1,500",'),
    );
    expect((await allRows(free, cancelled.id))[0]).toMatchObject({ outcome: 'CANCELLATION', entryId: entry!.id });
    bodyOf(await free.api.ledger.imports.commit({ params: { id: cancelled.id } }), 200);
    expect(await entriesOf(app, free.id)).toHaveLength(1);
    // The same statement again: the cancellation is a duplicate and removes nothing more.
    const again = await upload(free, cardCsv('2026-05-13,배달의민족,"-23,000",30000002', '2026-05-13,GS25,"1,500",'));
    expect(again.counts).toMatchObject({ DUPLICATE: 2, CANCELLATION: 0 });
  });
});

describe('statement import: adjusting, profiles, undo', () => {
  test('rows left out and taken back, a wallet, a mapping saved as a profile for the next file of the shape', async ({
    free,
    other,
  }) => {
    const wallet = bodyOf(await free.api.ledger.wallets.create({ body: { name: '신한카드', type: 'CARD' } }), 201);
    const preview = await upload(free, cardCsv('2026-05-12,이마트,"54,300",', '2026-05-13,GS25,"1,500",'));
    const left = bodyOf(
      await free.api.ledger.imports.adjust({
        params: { id: preview.id },
        body: { exclude: [1], accountId: wallet.id, saveProfile: { name: '신한카드 이용내역' } },
      }),
      200,
    );
    expect(left).toMatchObject({ accountId: wallet.id, counts: { NEW: 1, EXCLUDED: 1 } });
    expect(left.profile).toMatchObject({ name: '신한카드 이용내역' });
    const back = bodyOf(
      await free.api.ledger.imports.adjust({ params: { id: preview.id }, body: { include: [1] } }),
      200,
    );
    expect(back.counts).toMatchObject({ NEW: 2, EXCLUDED: 0 });

    problemOf(
      await free.api.ledger.imports.adjust({
        params: { id: preview.id },
        body: { mapping: { ...preview.mapping, date: 9 } },
      }),
      400,
      'VALIDATION_FAILED',
    );
    const foreignWallet = bodyOf(await other.api.ledger.wallets.create({ body: { name: 'Other', type: 'CASH' } }), 201);
    problemOf(
      await free.api.ledger.imports.adjust({ params: { id: preview.id }, body: { accountId: foreignWallet.id } }),
      404,
      'NOT_FOUND',
    );

    const next = await upload(free, cardCsv('2026-05-20,올리브영,"18,000",'));
    expect(next).toMatchObject({ accountId: wallet.id, profile: { name: '신한카드 이용내역' } });
    const profiles = bodyOf(await free.api.ledger.imports.profiles(), 200).items;
    expect(profiles).toEqual([expect.objectContaining({ name: '신한카드 이용내역', format: 'CSV' })]);
    problemOf(await other.api.ledger.imports.get({ params: { id: preview.id } }), 404, 'NOT_FOUND');
  });

  test('an undo deletes the created entries, makes confirmed ones pending again, and keeps what was edited', async ({
    app,
    free,
  }) => {
    const [pending] = await app.db
      .insert(accountEntry)
      .values({
        memberId: free.id,
        type: 'EXPENSE',
        amount: 7000,
        entryDate: '2026-05-01',
        memo: '김밥천국',
        pending: true,
      })
      .returning();
    const preview = await upload(
      free,
      cardCsv('2026-05-01,김밥천국,"7,000",', '2026-05-02,이마트,"54,300",', '2026-05-03,GS25,"1,500",'),
    );
    bodyOf(await free.api.ledger.imports.commit({ params: { id: preview.id } }), 200);
    const created = (await allRows(free, preview.id)).filter((row) => row.outcome === 'NEW');
    bodyOf(
      await free.api.ledger.entries.update({ params: { id: created[1]!.entryId! }, body: { memo: 'GS25 성수역점' } }),
      200,
    );
    const undone = bodyOf(await free.api.ledger.imports.undo({ params: { id: preview.id } }), 200);
    expect(undone.removed).toEqual([created[0]!.entryId]);
    expect(undone.reverted).toEqual([pending!.id]);
    expect(undone.kept).toEqual([{ entryId: created[1]!.entryId, reason: expect.any(String) }]);
    expect(undone.import).toMatchObject({ status: 'UNDONE', undoableUntil: null });
    const entries = await entriesOf(app, free.id);
    expect(entries.map((entry) => [entry.memo, entry.pending, entry.importKey === null])).toEqual([
      ['김밥천국', true, true],
      ['GS25 성수역점', false, false],
    ]);
    problemOf(await free.api.ledger.imports.undo({ params: { id: preview.id } }), 409, 'IMPORT_NOT_COMMITTED');
    problemOf(await free.api.ledger.imports.commit({ params: { id: preview.id } }), 409, 'IMPORT_COMMITTED');
  });

  test('past its window an import cannot be undone; a preview cannot be undone; a committed one cannot be discarded', async ({
    app,
    free,
  }) => {
    const preview = await upload(free, cardCsv('2026-05-02,이마트,"54,300",'));
    problemOf(await free.api.ledger.imports.undo({ params: { id: preview.id } }), 409, 'IMPORT_NOT_COMMITTED');
    bodyOf(await free.api.ledger.imports.commit({ params: { id: preview.id } }), 200);
    problemOf(await free.api.ledger.imports.discard({ params: { id: preview.id } }), 409, 'IMPORT_COMMITTED');
    await app.db
      .update(statementImport)
      .set({ committedAt: sql`now() - interval '169 hours'` })
      .where(and(eq(statementImport.memberId, free.id), eq(statementImport.id, preview.id)));
    problemOf(await free.api.ledger.imports.undo({ params: { id: preview.id } }), 409, 'IMPORT_UNDO_EXPIRED');

    const discarded = await upload(free, cardCsv('2026-05-03,GS25,"1,500",'));
    const gone = await free.api.ledger.imports.discard({ params: { id: discarded.id } });
    expect(gone.status).toBe(204);
    problemOf(await free.api.ledger.imports.get({ params: { id: discarded.id } }), 404, 'NOT_FOUND');
  });
});

describe('statement import: concurrency', () => {
  test('committing one import in parallel applies it once; two imports of the same rows at once create them once', async ({
    app,
    free,
  }) => {
    const text = cardCsv('2026-05-12,이마트,"54,300",40000001', '2026-05-13,GS25,"1,500",40000002');
    const one = await upload(free, text);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => free.api.ledger.imports.commit({ params: { id: one.id } })),
    );
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(await entriesOf(app, free.id)).toHaveLength(2);

    const rows = cardCsv('2026-06-12,이마트,"54,300",50000001', '2026-06-13,GS25,"1,500",50000002');
    const [a, b] = await Promise.all([upload(free, rows), upload(free, rows)]);
    await Promise.all([
      free.api.ledger.imports.commit({ params: { id: a.id } }),
      free.api.ledger.imports.commit({ params: { id: b.id } }),
    ]);
    expect(await entriesOf(app, free.id)).toHaveLength(4);
  });
});

describe('statement import: bad files and limits', () => {
  test('a binary file, a legacy .xls, an empty file and a header-only file are refused with what to do', async ({
    free,
  }) => {
    const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1];
    const binary = new File([new Uint8Array(png)], 'card.csv', { type: 'text/csv' });
    problemOf(await free.api.ledger.imports.upload({ body: { file: binary } }), 400, 'STATEMENT_UNSUPPORTED');
    const ole = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, ...new Uint8Array(504)]);
    const legacy = problemOf(
      await free.api.ledger.imports.upload({ body: { file: new File([ole], 'card.xls') } }),
      400,
      'STATEMENT_UNSUPPORTED',
    );
    expect(legacy.detail).toMatch(/xlsx|CSV/);
    problemOf(await free.api.ledger.imports.upload({ body: { file: file('') } }), 400, 'STATEMENT_UNREADABLE');
    problemOf(
      await free.api.ledger.imports.upload({ body: { file: file(`${HEADER}\r\n`) } }),
      400,
      'STATEMENT_UNREADABLE',
    );
  });
});

const quotaTest = apiTest({ IMPORT_DAILY_UPLOADS_FREE: '2' });

describe('statement import: the day’s uploads', () => {
  quotaTest(
    'a FREE member’s third upload of the day is 429 with Retry-After; a refused file does not count',
    async ({ free }) => {
      problemOf(await free.api.ledger.imports.upload({ body: { file: file('') } }), 400, 'STATEMENT_UNREADABLE');
      await upload(free, cardCsv('2026-05-12,이마트,"54,300",'));
      await upload(free, cardCsv('2026-05-13,GS25,"1,500",'));
      const refused = await free.api.ledger.imports.upload({
        body: { file: file(cardCsv('2026-05-14,GS25,"1,500",')) },
      });
      problemOf(refused, 429, 'IMPORT_QUOTA_EXCEEDED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    },
  );
});

describe('statement import: sync and backup', () => {
  test('imported entries reach the delta feed; the backup carries their keys and the import, so a restored ledger still knows the file', async ({
    premium,
  }) => {
    const text = cardCsv('2026-05-12,이마트 성수점,"54,300",60000001', '2026-05-14,스타벅스 강남R점,"12,800",60000002');
    const preview = await upload(premium, text);
    bodyOf(await premium.api.ledger.imports.commit({ params: { id: preview.id } }), 200);
    const feed = bodyOf(await premium.api.ledger.changes.list({ query: {} }), 200);
    expect(feed.changed.entries.map((entry) => entry.memo)).toEqual(['이마트 성수점', '스타벅스 강남R점']);

    const backup = bodyOf(await premium.api.ledger.backup.export(), 200);
    expect(backup.entries.every((entry) => typeof entry.importKey === 'string')).toBe(true);
    expect(backup.imports).toEqual([
      expect.objectContaining({
        fileName: 'card.csv',
        format: 'CSV',
        status: 'COMMITTED',
        counts: expect.objectContaining({ NEW: 2 }),
      }),
    ]);
    bodyOf(await premium.api.ledger.backup.restore({ body: backup }), 200);
    const again = await upload(premium, text);
    expect(again.counts).toMatchObject({ NEW: 0, DUPLICATE: 2 });
  });
});
