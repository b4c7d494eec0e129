import type { CreateWalletRequest, NotificationRequest } from '@nestegg/contract';
import { accountEntry } from '@nestegg/db';
import { type FakeResponse, startFakeServer } from '@nestegg/testing';
import { and, asc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { apiTest, type Caller } from '../../../test/fixtures.js';
import { seedCategory, seedEntries } from '../entries/ledger.fixture.js';
import { CORPUS } from './corpus/index.fixture.js';

const fake = await startFakeServer();
afterAll(() => fake.close());

/** 2030-05-20 21:00 in Seoul (12:00 UTC): texts without a year are read as 2030. */
const clock = { at: Date.parse('2030-05-20T21:00:00+09:00'), now: () => new Date(clock.at) };
const test = apiTest(
  { APP_TIMEZONE: 'Asia/Seoul', FX_API_URL: fake.url, FX_API_KEY: 'k', FX_TIMEOUT_MS: '1000' },
  { clock },
);

const rawJson = (text: string): FakeResponse => ({ headers: { 'content-type': 'application/json' }, body: text });
const pair = (rate: string) => rawJson(`{"result":"success","conversion_rate":${rate}}`);
const history = (rates: string) => rawJson(`{"result":"success","conversion_rates":${rates}}`);

/** Texts in the layouts of the corpus, dated in May 2030. */
const TEXTS = {
  shinhan0830: '[Web발신]\n신한카드(1054)승인 김*수 12,500원(일시불)05/20 08:30 스타벅스 강남점 누적1,960,854원',
  shinhan0845: '[Web발신]\n신한카드(1054)승인 김*수 12,500원(일시불)05/20 08:45 스타벅스 강남점 누적1,973,354원',
  shinhanCancel: '[Web발신]\n신한카드(1054)취소 김*수 12,500원(일시불)05/20 09:10 스타벅스 강남점 누적1,960,854원',
  kbSms: '[Web발신]\nKB국민카드4821승인\n김*수님\n23,500원 일시불\n05/20 19:02\n교보문고 광화문점\n누적1,234,000원',
  kbPush: 'KB Pay\n[KB Pay 사용 알림] 신용 4821 05/20 19:02 23,500원 교보문고 광화문점 승인',
  lotteSms: '롯데카드 김*수님 35,000원 일시불 05/20 18:20 올리브영 강남본점',
  lottePush: '올리브영 강남본점\n35,000원 승인\r\n롯데카드(1*2*) \r\n일시불, 05/20 18:20\r\n누적금액 456,000원',
  hyundaiInstalment: '[Web발신]\n현대카드 승인\n김*수\n120,000원 3개월\n05/20 13:00\n이마트 성수점\n누적500,000원',
  hanaUsdToday: '[Web발신]\n하나9*6*해외승인 심*현 USD22.00 05/20 15:19 ANTHROPIC* CLAUDE SU',
  samsungUsd: '[Web발신]\n삼성4821해외승인 김*수\nUSD 45.90\n05/18 02:11 AMAZON MKTPLACE PMTS',
  samsungUsdCancel: '[Web발신]\n삼성4821해외취소 김*수\nUSD -45.90\n05/19 10:40 AMAZON MKTPLACE PMTS',
  samsungEur: '[Web발신]\n삼성1234승인 홍*동\nEUR 32.50 해외\n05/20 11:02 MUSEO DEL PRADO',
  advert: '[Web발신]\n(광고)[삼성카드] 무이자할부 LINK 혜택!!',
};

const shinhanAt = (time: string, merchant = '스타벅스 강남점') =>
  `[Web발신]\n신한카드(1054)승인 김*수 12,500원(일시불)05/20 ${time} ${merchant}`;

function notify(caller: Caller, text: string, extra: Partial<NotificationRequest> = {}) {
  return caller.api.ledger.entries.notification({ body: { text, ...extra } });
}

async function created(caller: Caller, text: string, extra: Partial<NotificationRequest> = {}) {
  return bodyOf(await notify(caller, text, extra), 201).entry;
}

async function skippedBy(caller: Caller, text: string, extra: Partial<NotificationRequest> = {}) {
  return bodyOf(await notify(caller, text, extra), 200);
}

async function wallet(caller: Caller, body: Partial<CreateWalletRequest> & { name: string }) {
  return bodyOf(await caller.api.ledger.wallets.create({ body: { type: 'CARD', ...body } }), 201).id;
}

async function balanceOf(caller: Caller, id: number) {
  return bodyOf(await caller.api.ledger.wallets.get({ params: { id } }), 200).balance;
}

function entriesOf(app: FastifyInstance, memberId: number) {
  return app.db.select().from(accountEntry).where(eq(accountEntry.memberId, memberId)).orderBy(asc(accountEntry.id));
}

async function pendingCount(caller: Caller) {
  return bodyOf(await caller.api.ledger.entries.pendingCount(), 200).count;
}

describe('POST /entries/parse', () => {
  const samples = [
    CORPUS.find((entry) => entry.text.startsWith('신한카드(1054)승인')),
    CORPUS.find((entry) => entry.text.includes('하나9*6*해외승인')),
    CORPUS.find((entry) => entry.text.includes('삼성4821해외취소')),
    CORPUS.find((entry) => entry.text.includes('할부(11)') && !entry.text.includes('취소')),
    CORPUS.find((entry) => entry.expected.ignored),
  ];

  test('answers the parser’s full result for corpus texts, and saves nothing', async ({ app, free }) => {
    expect(samples.every(Boolean)).toBe(true);
    for (const sample of samples) {
      const body = { text: sample!.text, receivedAt: sample!.receivedAt.toISOString() };
      expect(bodyOf(await free.api.ledger.entries.parse({ body }), 200)).toEqual(sample!.expected);
    }
    expect(await entriesOf(app, free.id)).toEqual([]);
  });

  test('reads the year from receivedAt, defaulting to now', async ({ free }) => {
    const parse = async (receivedAt?: string) =>
      bodyOf(await free.api.ledger.entries.parse({ body: { text: TEXTS.shinhan0830, receivedAt } }), 200);
    expect(await parse()).toMatchObject({
      kind: 'APPROVAL',
      cardCompany: '신한',
      cardLast4: '1054',
      amount: 12_500,
      currency: 'KRW',
      originalAmount: null,
      merchant: '스타벅스 강남점',
      installmentMonths: null,
      occurredAt: '2030-05-19T23:30:00.000Z',
      cumulativeAmount: 1_960_854,
    });
    expect(await parse('2031-01-02T00:00:00.000Z')).toMatchObject({ occurredAt: '2030-05-19T23:30:00.000Z' });
    expect(await parse('2028-06-01T00:00:00.000Z')).toMatchObject({ occurredAt: '2028-05-19T23:30:00.000Z' });
  });

  test('a value the entry cannot hold is null, never a 500', async ({ free }) => {
    const text = '[Web발신]\n삼성4821해외승인 김*수\nUSD 123456789012345.12345\n05/18 02:11 AMAZON';
    expect(bodyOf(await free.api.ledger.entries.parse({ body: { text } }), 200)).toMatchObject({
      currency: 'USD',
      amount: null,
      originalAmount: null,
    });
  });

  test('needs a login', async ({ anonymous }) => {
    problemOf(await anonymous.ledger.entries.parse({ body: { text: TEXTS.kbSms } }), 401, 'UNAUTHENTICATED');
  });
});

describe('POST /entries/notification', () => {
  test('an approval becomes a pending expense on the matched card, dated in APP_TIMEZONE', async ({ premium }) => {
    const card = await wallet(premium, { name: '신한 Deep Dream', cardCompany: '신한카드' });
    await wallet(premium, { name: '삼성 taptap', cardCompany: '삼성' });
    const entry = await created(premium, TEXTS.shinhan0830);
    expect(entry).toMatchObject({
      type: 'EXPENSE',
      amount: 12_500,
      // 08:30 in Seoul is 23:30 UTC the day before: the Seoul calendar day counts.
      date: '2030-05-20',
      memo: '스타벅스 강남점',
      category: null,
      accountId: card,
      currency: null,
      installmentMonths: null,
      pending: true,
      tags: [],
    });
    expect(entry.notifKey).toMatch(/^v1:A:[\w-]{22}:2030-05-19T23:30$/);
    expect(await pendingCount(premium)).toBe(1);
    expect(await balanceOf(premium, card)).toBe(0);
  });

  test('the same approval by SMS and by push, or twice, is one entry', async ({ app, premium }) => {
    const kb = await created(premium, TEXTS.kbSms);
    expect(await skippedBy(premium, TEXTS.kbPush)).toEqual({ created: false, reason: 'DUPLICATE', entryId: kb.id });
    expect(await skippedBy(premium, TEXTS.kbSms, { receivedAt: '2030-05-20T10:09:00.000Z' })).toMatchObject({
      reason: 'DUPLICATE',
    });
    const lotte = await created(premium, TEXTS.lottePush);
    expect(await skippedBy(premium, TEXTS.lotteSms)).toEqual({
      created: false,
      reason: 'DUPLICATE',
      entryId: lotte.id,
    });
    // Another minute, another merchant or another amount is another purchase.
    await created(premium, shinhanAt('10:00'));
    await created(premium, shinhanAt('10:01'));
    await created(premium, shinhanAt('10:01', '스타벅스 역삼점'));
    expect(await entriesOf(app, premium.id)).toHaveLength(5);
  });

  test('five identical approvals at once create one entry', async ({ app, premium }) => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => notify(premium, TEXTS.kbSms)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const [entry] = await entriesOf(app, premium.id);
    for (const answer of answers) {
      if (answer.status === 200)
        expect(answer.body).toEqual({ created: false, reason: 'DUPLICATE', entryId: entry!.id });
    }
    expect(await entriesOf(app, premium.id)).toHaveLength(1);
  });

  test('texts that are no approval create nothing', async ({ app, premium }) => {
    expect(await skippedBy(premium, TEXTS.advert)).toEqual({ created: false, reason: 'IGNORED', entryId: null });
    const noAmount = '[Web발신]\n현대카드 승인\n김*수\n99,999,999,999,999,999원\n05/20 13:00\n이마트';
    expect(await skippedBy(premium, noAmount)).toMatchObject({ reason: 'UNREADABLE' });
    expect(await entriesOf(app, premium.id)).toEqual([]);
  });

  test('is premium', async ({ free }) => {
    problemOf(await notify(free, TEXTS.kbSms), 403, 'PREMIUM_REQUIRED');
    problemOf(await free.api.ledger.entries.pendingCount(), 403, 'PREMIUM_REQUIRED');
    problemOf(await free.api.ledger.entries.confirm({ params: { id: 1 } }), 403, 'PREMIUM_REQUIRED');
  });
});

describe('foreign approvals', () => {
  test("are converted at the approval day's rate, keeping currency, amount and rate", async ({ premium }) => {
    fake.on('GET /v6/k/pair/USD/KRW', () => pair('1380.55'));
    fake.on('GET /v6/k/history/USD/2030/5/18', () => history('{"KRW":1379.123456789012,"JPY":155.1}'));
    expect(await created(premium, TEXTS.hanaUsdToday)).toMatchObject({
      amount: 30_372, // 22.00 × 1380.55 = 30372.1
      date: '2030-05-20',
      currency: 'USD',
      originalAmount: '22',
      exchangeRate: '1380.55',
    });
    expect(await created(premium, TEXTS.samsungUsd)).toMatchObject({
      amount: 63_302, // 45.90 × 1379.123456789 (the stored 10 decimals) = 63301.77
      date: '2030-05-18',
      currency: 'USD',
      originalAmount: '45.9',
      exchangeRate: '1379.123456789',
    });
  });

  test('provider down → 503 and nothing created (never 1:1)', async ({ app, premium }) => {
    fake.on('GET /v6/k/pair/EUR/KRW', () => ({ status: 500, body: { result: 'error' } }));
    problemOf(await notify(premium, TEXTS.samsungEur), 503, 'PROVIDER_UNAVAILABLE');
    expect(await entriesOf(app, premium.id)).toEqual([]);
  });

  test('a currency the provider does not know → 404 and nothing created', async ({ app, premium }) => {
    fake.on('GET /v6/k/pair/GBP/KRW', () => rawJson('{"result":"error","error-type":"unsupported-code"}'));
    problemOf(await notify(premium, TEXTS.samsungEur.replace('EUR', 'GBP')), 404, 'CURRENCY_NOT_FOUND');
    expect(await entriesOf(app, premium.id)).toEqual([]);
  });
});

describe('card matching', () => {
  test('a single card wallet is chosen without a card company', async ({ premium }) => {
    await wallet(premium, { name: '현금', type: 'CASH' });
    const only = await wallet(premium, { name: 'My card' });
    expect((await created(premium, TEXTS.kbSms)).accountId).toBe(only);
  });

  test('a cash selection, or a card of another company, is corrected to the matched card', async ({ premium }) => {
    const cash = await wallet(premium, { name: '현금', type: 'CASH' });
    const samsung = await wallet(premium, { name: '삼성 iD', cardCompany: '삼성카드' });
    const kb = await wallet(premium, { name: '국민 톡톡', cardCompany: 'KB국민' });
    expect((await created(premium, TEXTS.kbSms, { accountId: cash })).accountId).toBe(kb);
    expect((await created(premium, TEXTS.lotteSms, { accountId: cash })).accountId).toBe(cash);
    expect((await created(premium, shinhanAt('11:00'), { accountId: samsung })).accountId).toBeNull();
    expect((await created(premium, shinhanAt('11:01'), { accountId: kb })).accountId).toBeNull();
  });

  test('the last four digits pick between cards of one company (account number or name)', async ({ premium }) => {
    const byNumber = await wallet(premium, {
      name: '신한 Mr.Life',
      cardCompany: '신한',
      accountNumber: '9410-1234-5678-1054',
    });
    const byName = await wallet(premium, { name: '신한 Deep 7777', cardCompany: '신한카드' });
    const unknown = await wallet(premium, { name: '신한 체크', type: 'CHECK_CARD', cardCompany: '신한' });
    expect((await created(premium, shinhanAt('12:00'))).accountId).toBe(byNumber);
    const seven = '[Web발신]\n신한카드(7777)승인 김*수 8,000원(일시불)05/20 12:01 김밥천국';
    expect((await created(premium, seven, { accountId: byNumber })).accountId).toBe(byName);
    const other = '[Web발신]\n신한카드(5555)승인 김*수 8,000원(일시불)05/20 12:02 김밥천국';
    expect((await created(premium, other)).accountId).toBe(unknown);
  });

  test('equal fits name no card, unless the device chose one of them', async ({ premium }) => {
    const first = await wallet(premium, { name: '현대카드 M', cardCompany: '현대' });
    const second = await wallet(premium, { name: '현대카드 ZERO', cardCompany: '현대카드' });
    expect((await created(premium, TEXTS.hyundaiInstalment)).accountId).toBeNull();
    const chosen = await created(premium, TEXTS.hyundaiInstalment.replace('13:00', '13:05'), { accountId: second });
    expect(chosen.accountId).toBe(second);
    expect(first).not.toBe(second);
  });

  test('instalments stay on a credit card and are dropped on a check card', async ({ premium }) => {
    const credit = await wallet(premium, { name: '현대카드 M', cardCompany: '현대' });
    expect(await created(premium, TEXTS.hyundaiInstalment)).toMatchObject({ accountId: credit, installmentMonths: 3 });
    const check = await wallet(premium, { name: '현대 체크', type: 'CHECK_CARD', cardCompany: '현대' });
    const later = TEXTS.hyundaiInstalment.replace('13:00', '13:30');
    expect(await created(premium, later, { accountId: check })).toMatchObject({
      accountId: check,
      installmentMonths: null,
    });
  });

  test("another member's wallet is 404, whatever the text", async ({ premium, other }) => {
    const foreign = await wallet(other, { name: 'Theirs' });
    problemOf(await notify(premium, TEXTS.kbSms, { accountId: foreign }), 404, 'NOT_FOUND');
    problemOf(await notify(premium, TEXTS.advert, { accountId: foreign }), 404, 'NOT_FOUND');
  });
});

describe('cancellations', () => {
  test('a cancellation removes its pending approval', async ({ app, premium }) => {
    const approval = await created(premium, TEXTS.shinhan0830);
    expect(await skippedBy(premium, TEXTS.shinhanCancel)).toEqual({
      created: false,
      reason: 'CANCELLED',
      entryId: approval.id,
    });
    expect(await entriesOf(app, premium.id)).toEqual([]);
    expect(await pendingCount(premium)).toBe(0);
  });

  test('a confirmed approval is removed too, and its wallet balance restored', async ({ premium }) => {
    const card = await wallet(premium, { name: '신한', cardCompany: '신한', openingBalance: 0 });
    const approval = await created(premium, TEXTS.shinhan0830);
    bodyOf(await premium.api.ledger.entries.confirm({ params: { id: approval.id } }), 200);
    expect(await balanceOf(premium, card)).toBe(-12_500);
    expect(await skippedBy(premium, TEXTS.shinhanCancel)).toMatchObject({ reason: 'CANCELLED' });
    expect(await balanceOf(premium, card)).toBe(0);
    problemOf(await premium.api.ledger.entries.get({ params: { id: approval.id } }), 404, 'NOT_FOUND');
  });

  test('the same cancellation twice cancels one purchase of two alike', async ({ app, premium }) => {
    const earlier = await created(premium, TEXTS.shinhan0830);
    const later = await created(premium, TEXTS.shinhan0845);
    const answers = await Promise.all([notify(premium, TEXTS.shinhanCancel), notify(premium, TEXTS.shinhanCancel)]);
    expect(answers.map((answer) => bodyOf(answer, 200)).sort((a, b) => a.reason.localeCompare(b.reason))).toEqual([
      { created: false, reason: 'CANCELLED', entryId: later.id },
      { created: false, reason: 'DUPLICATE', entryId: later.id },
    ]);
    expect((await entriesOf(app, premium.id)).map((row) => row.id)).toEqual([earlier.id]);
  });

  test('a foreign cancellation finds its approval of days before without a rate', async ({ app, premium }) => {
    fake.on('GET /v6/k/history/USD/2030/5/18', () => history('{"KRW":1379.123456789012}'));
    const approval = await created(premium, TEXTS.samsungUsd);
    const calls = fake.requests.length;
    expect(await skippedBy(premium, TEXTS.samsungUsdCancel)).toMatchObject({
      reason: 'CANCELLED',
      entryId: approval.id,
    });
    expect(fake.requests.length).toBe(calls);
    expect(await entriesOf(app, premium.id)).toEqual([]);
  });

  test('a cancellation without a recorded approval changes nothing', async ({ app, premium }) => {
    await created(premium, shinhanAt('08:30', '스타벅스 역삼점'));
    expect(await skippedBy(premium, TEXTS.shinhanCancel)).toEqual({
      created: false,
      reason: 'APPROVAL_NOT_FOUND',
      entryId: null,
    });
    expect(await entriesOf(app, premium.id)).toHaveLength(1);
  });
});

describe('category learning', () => {
  async function learningLedger(app: FastifyInstance, memberId: number) {
    for (const name of ['카페', '식비', '편의점', '도서']) await seedCategory(app, memberId, name);
    await seedCategory(app, memberId, '급여', 'INCOME');
    const confirmed = (memo: string, category: string, times: number) =>
      Array.from({ length: times }, () => ({ memo, category }));
    await seedEntries(app, memberId, [
      // Contained in the new memo "스타벅스 강남점": two uses.
      ...confirmed('스타벅스', '카페', 2),
      // Contains it: one use.
      ...confirmed('스타벅스 강남점 2층', '식비', 1),
      // Pending entries and other types teach nothing.
      ...Array.from({ length: 5 }, () => ({ memo: '스타벅스 강남점', category: '편의점', pending: true })),
      ...Array.from({ length: 5 }, () => ({ memo: '스타벅스 강남점', category: '급여', type: 'INCOME' as const })),
      ...confirmed('이디야', '편의점', 9),
    ]);
  }

  test('pre-fills the most used category of memos containing or contained in the merchant', async ({
    app,
    premium,
  }) => {
    await learningLedger(app, premium.id);
    const first = await created(premium, shinhanAt('14:00'));
    expect(first).toMatchObject({ category: '카페', pending: true });
    await seedEntries(app, premium.id, [
      { memo: '스타벅스강남점2층', category: '식비' },
      { memo: '스타벅스 강남점 2층', category: '식비' },
    ]);
    expect(await created(premium, shinhanAt('14:01'))).toMatchObject({ category: '식비', pending: true });
    expect(await created(premium, shinhanAt('14:02', '교보문고'))).toMatchObject({ category: null });
  });

  test('learns from confirmed entries: confirming teaches, deleting unteaches', async ({ app, premium }) => {
    await learningLedger(app, premium.id);
    const kb = await created(premium, TEXTS.kbSms);
    expect(kb.category).toBeNull();
    bodyOf(await premium.api.ledger.entries.update({ params: { id: kb.id }, body: { category: '도서' } }), 200);
    expect((await created(premium, TEXTS.kbSms.replace('19:02', '19:30'))).category).toBeNull();
    bodyOf(await premium.api.ledger.entries.confirm({ params: { id: kb.id } }), 200);
    const taught = await created(premium, TEXTS.kbSms.replace('19:02', '19:40'));
    expect(taught.category).toBe('도서');
    bodyOf(await premium.api.ledger.entries.delete({ params: { id: kb.id } }), 204);
    expect((await created(premium, TEXTS.kbSms.replace('19:02', '19:50'))).category).toBeNull();
  });

  test('a category the member no longer has is not proposed', async ({ app, premium }) => {
    const id = await seedCategory(app, premium.id, '카페');
    await seedEntries(app, premium.id, [{ memo: '스타벅스', category: '카페' }]);
    bodyOf(await premium.api.ledger.categories.delete({ params: { id } }), 204);
    expect((await created(premium, shinhanAt('15:00'))).category).toBeNull();
  });
});

describe('confirm and the pending count', () => {
  test('confirming is idempotent and moves the balance once', async ({ premium }) => {
    const card = await wallet(premium, { name: 'KB', cardCompany: 'KB국민', openingBalance: 100_000 });
    const entry = await created(premium, TEXTS.kbSms);
    const other = await created(premium, TEXTS.lotteSms);
    expect(await pendingCount(premium)).toBe(2);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => premium.api.ledger.entries.confirm({ params: { id: entry.id } })),
    );
    for (const answer of answers) expect(bodyOf(answer, 200)).toMatchObject({ id: entry.id, pending: false });
    expect(await balanceOf(premium, card)).toBe(100_000 - 23_500);
    const again = bodyOf(await premium.api.ledger.entries.confirm({ params: { id: entry.id } }), 200);
    expect(again).toMatchObject({ pending: false, amount: 23_500 });
    expect(await balanceOf(premium, card)).toBe(100_000 - 23_500);
    expect(await pendingCount(premium)).toBe(1);
    expect(other.pending).toBe(true);
  });

  test('confirming an unknown entry is 404', async ({ premium }) => {
    problemOf(await premium.api.ledger.entries.confirm({ params: { id: 2_000_000_000 } }), 404, 'NOT_FOUND');
  });

  test('confirming the entry that completes the month grants the bonus', async ({ app, premium }) => {
    const days = Array.from({ length: 31 }, (_, index) => index + 1).filter((day) => day !== 20);
    await seedEntries(
      app,
      premium.id,
      days.map((day) => ({ entryDate: `2030-05-${String(day).padStart(2, '0')}` })),
    );
    const entry = await created(premium, TEXTS.kbSms);
    const bonuses = async () =>
      bodyOf(await premium.api.auth.pointHistory(), 200).items.filter(
        (item) => item.reason === 'MONTH_COMPLETE_203005',
      );
    expect(await bonuses()).toEqual([]);
    bodyOf(await premium.api.ledger.entries.confirm({ params: { id: entry.id } }), 200);
    expect(await bonuses()).toHaveLength(1);
  });

  test('the pending count is per member', async ({ app, premium, admin }) => {
    await created(premium, TEXTS.kbSms);
    await seedEntries(app, admin.id, [{ pending: true }, { pending: true }, {}]);
    expect(await pendingCount(premium)).toBe(1);
    expect(await pendingCount(admin)).toBe(2);
    const rows = await app.db
      .select()
      .from(accountEntry)
      .where(and(eq(accountEntry.memberId, premium.id), eq(accountEntry.pending, true)));
    expect(rows).toHaveLength(1);
  });
});
