/**
 * Decision P35: a large preview's and commit's batches give way to other members' requests. Each batch that
 * other members' requests arrived during is followed by a pause (counted in `nestegg_give_way_pause_seconds_total`);
 * with nobody else about (the probes are no one) there is none, and what the import creates (and its undo removes) is
 * the same either way.
 */
import { setImmediate } from 'node:timers/promises';
import { accountEntry } from '@nestegg/db';
import { count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { apiTest, type Caller } from '../../../test/fixtures.js';

const test = apiTest({ IMPORT_BUSY_SHARE: '0.8' });

/** Three batches of 5,000 rows each time the rows are written or read. */
const ROWS = 12_000;

const statement = () => {
  const lines = Array.from({ length: ROWS }, (_, at) => {
    const day = String(1 + (at % 28)).padStart(2, '0');
    return `2026-05-${day},가맹점 ${at % 300},"${(1_000 + at).toLocaleString('en-US')}",${20_000_000 + at}`;
  });
  const text = `\uFEFF${['이용일자,가맹점명,이용금액,승인번호', ...lines].join('\r\n')}\r\n`;
  return new File([new TextEncoder().encode(text)], 'card.csv', { type: 'text/csv' });
};

async function pausedSeconds(app: FastifyInstance): Promise<number> {
  const { values } = await app.metrics.giveWayPauses.get();
  return values.find((value) => value.labels.job === 'statement_import')?.value ?? 0;
}

/** Runs `work` while `url` is asked for again and again (with `token`, if any), until it is done. */
async function whileAsked<T>(app: FastifyInstance, url: string, token: string | null, work: Promise<T>): Promise<T> {
  let done = false;
  const asking = (async () => {
    while (!done) {
      const answer = await app.inject({
        method: 'GET',
        url,
        ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      });
      expect(answer.statusCode).toBe(200);
      // A probe is answered within microtasks: without a turn of the loop the import's I/O would never run.
      await setImmediate();
    }
  })();
  try {
    return await work;
  } finally {
    done = true;
    await asking;
  }
}

/** Another member reading their profile again and again meanwhile. */
const whileOthersRead = <T>(app: FastifyInstance, other: Caller, work: Promise<T>) =>
  whileAsked(app, '/api/auth/profile', other.token, work);

async function importAll(caller: Caller, around: <T>(work: Promise<T>) => Promise<T>) {
  const preview = bodyOf(await around(caller.api.ledger.imports.upload({ body: { file: statement() } })), 201);
  expect(preview.counts.NEW).toBe(ROWS);
  const committed = bodyOf(await around(caller.api.ledger.imports.commit({ params: { id: preview.id } })), 200);
  expect(committed.counts.NEW).toBe(ROWS);
}

const entriesOf = async (app: FastifyInstance, memberId: number) =>
  (await app.db.select({ n: count() }).from(accountEntry).where(eq(accountEntry.memberId, memberId)))[0]!.n;

describe('a large import gives way to other requests', () => {
  test('with nobody else about but the load balancer probing, its batches never pause', async ({ app, premium }) => {
    const before = await pausedSeconds(app);
    await importAll(premium, (work) => whileAsked(app, '/healthz', null, work));
    expect(await pausedSeconds(app)).toBe(before);
    expect(await entriesOf(app, premium.id)).toBe(ROWS);
  });

  test('while another member is served, its batches pause (preview, commit and undo), and it creates exactly the same', async ({
    app,
    premium,
    other,
  }) => {
    const before = await pausedSeconds(app);
    const preview = bodyOf(
      await whileOthersRead(app, other, premium.api.ledger.imports.upload({ body: { file: statement() } })),
      201,
    );
    const afterPreview = await pausedSeconds(app);
    expect(afterPreview).toBeGreaterThan(before);
    const committed = bodyOf(
      await whileOthersRead(app, other, premium.api.ledger.imports.commit({ params: { id: preview.id } })),
      200,
    );
    expect(committed.counts.NEW).toBe(ROWS);
    const afterCommit = await pausedSeconds(app);
    expect(afterCommit).toBeGreaterThan(afterPreview);
    expect(await entriesOf(app, premium.id)).toBe(ROWS);

    const undone = bodyOf(
      await whileOthersRead(app, other, premium.api.ledger.imports.undo({ params: { id: preview.id } })),
      200,
    );
    expect(undone.removed).toHaveLength(ROWS);
    expect(await pausedSeconds(app)).toBeGreaterThan(afterCommit);
    expect(await entriesOf(app, premium.id)).toBe(0);
  });
});
