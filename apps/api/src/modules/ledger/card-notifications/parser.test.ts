import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Family } from './corpus/entries.fixture.js';
import { CORPUS, type CorpusEntry } from './corpus/index.fixture.js';
import { CARD_COMPANIES, type ParsedCardNotification, parseCardNotification } from './parser';

const TRANSACTION_FIELDS = [
  'ignored',
  'kind',
  'cardCompany',
  'cardLast4',
  'amount',
  'currency',
  'originalAmount',
  'merchant',
  'installmentMonths',
  'occurredAt',
  'cumulativeAmount',
] as const;

type Field = (typeof TRANSACTION_FIELDS)[number];

function parseEntry(entry: CorpusEntry, text = entry.text): ParsedCardNotification {
  return parseCardNotification(text, { receivedAt: entry.receivedAt });
}

function fieldOf(result: ParsedCardNotification, field: Field): unknown {
  return field in result ? (result as Record<Field, unknown>)[field] : undefined;
}

/** Fields an entry is scored on: `ignored` alone for a text to ignore, every field otherwise. */
function scoredFields(expected: ParsedCardNotification): readonly Field[] {
  return expected.ignored ? ['ignored'] : TRANSACTION_FIELDS;
}

function label(entry: CorpusEntry): string {
  return JSON.stringify(entry.text).slice(0, 70);
}

const approvals = CORPUS.filter((entry) => !entry.expected.ignored);

describe('corpus', () => {
  it('covers the required breadth', () => {
    const companies = new Set(approvals.map((entry) => fieldOf(entry.expected, 'cardCompany')).filter(Boolean));
    const issuersAndApps = new Set(approvals.map((entry) => fieldOf(entry.expected, 'cardCompany') ?? entry.issuer));
    issuersAndApps.delete(undefined);
    expect(CORPUS.length).toBeGreaterThanOrEqual(300);
    expect(companies.size).toBeGreaterThanOrEqual(12);
    expect(issuersAndApps.size).toBeGreaterThanOrEqual(15);
    expect(CORPUS.length - approvals.length).toBeGreaterThanOrEqual(25);
    expect(CORPUS.every((entry) => entry.source.trim().length > 0)).toBe(true);
  });

  it('has approvals of every layout family of issue 19 (CN11)', () => {
    const families: readonly Family[] = ['labelled', 'bank-app', 'pay-app', 'corporate', 'extra-lines', 'product-name'];
    for (const family of families) {
      const count = approvals.filter((entry) => entry.family === family).length;
      expect({ family, atLeast5: count >= 5 }).toEqual({ family, atLeast5: true });
    }
  });

  it.each(CORPUS.map((entry) => [label(entry), entry] as const))('parses %s', (_, entry) => {
    const result = parseEntry(entry);
    for (const field of scoredFields(entry.expected)) {
      expect({ field, value: fieldOf(result, field) }).toEqual({ field, value: fieldOf(entry.expected, field) });
    }
    expect(result).toEqual(entry.expected);
  });

  it('reads every field of every text correctly (field accuracy)', () => {
    let fields = 0;
    let correct = 0;
    for (const entry of CORPUS) {
      const result = parseEntry(entry);
      for (const field of scoredFields(entry.expected)) {
        fields += 1;
        if (Object.is(fieldOf(result, field), fieldOf(entry.expected, field))) correct += 1;
      }
    }
    const accuracy = (100 * correct) / fields;
    console.info(`card parser field accuracy: ${accuracy.toFixed(2)} % over ${CORPUS.length} texts, ${fields} fields`);
    expect(correct).toBe(fields);
  });
});

/** Variants that must not change what is read. */
const VARIANTS: ReadonlyArray<readonly [string, (text: string) => string]> = [
  ['extra spaces', (text) => text.replace(/ /g, '   ').replace(/\n/g, '  \n  ')],
  ['CRLF line breaks', (text) => text.replace(/\r?\n/g, '\r\n')],
  ['LF line breaks', (text) => text.replace(/\r\n?/g, '\n')],
  ['blank lines', (text) => text.replace(/\n/g, '\n\n')],
  ['[Web발신] toggled', toggleWebTag],
  ['full-width characters', toFullWidth],
];

function toggleWebTag(text: string): string {
  const tag = /^\s*\[web발신\]\s*/i;
  return tag.test(text) ? text.replace(tag, '') : `[Web발신]\n${text}`;
}

/** ASCII letters, digits and symbols to their full-width forms (U+FF01..U+FF5E), as some phones send them. */
function toFullWidth(text: string): string {
  return text.replace(/[!-~]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0));
}

describe('robustness', () => {
  for (const [name, vary] of VARIANTS) {
    it(`reads every approval the same with ${name}`, () => {
      for (const entry of approvals) {
        expect({ text: label(entry), result: parseEntry(entry, vary(entry.text)) }).toEqual({
          text: label(entry),
          result: entry.expected,
        });
      }
    });
  }
});

describe('year rule', () => {
  const text = '[Web발신]\n삼성0163승인 홍*동\n39,000원 일시불\n12/31 23:59 (주)에스더포\n누적2,316,207원';

  it('puts a Dec 31 text received on Jan 1 in the previous year', () => {
    const result = parseCardNotification(text, { receivedAt: new Date('2026-01-01T00:05:00+09:00') });
    expect(fieldOf(result, 'occurredAt')).toBe('2025-12-31T14:59:00.000Z');
  });

  it('keeps the current year when the text is just before receipt', () => {
    const result = parseCardNotification(text, { receivedAt: new Date('2026-12-31T23:59:30+09:00') });
    expect(fieldOf(result, 'occurredAt')).toBe('2026-12-31T14:59:00.000Z');
  });

  it('allows a device clock a few minutes behind the issuer across New Year', () => {
    const newYear = text.replace('12/31 23:59', '01/01 00:03');
    const result = parseCardNotification(newYear, { receivedAt: new Date('2025-12-31T23:58:00+09:00') });
    expect(fieldOf(result, 'occurredAt')).toBe('2025-12-31T15:03:00.000Z');
  });

  it('takes the last leap year for 02/29', () => {
    const leapDay = text.replace('12/31 23:59', '02/29 10:00');
    const result = parseCardNotification(leapDay, { receivedAt: new Date('2026-03-01T09:00:00+09:00') });
    expect(fieldOf(result, 'occurredAt')).toBe('2024-02-29T01:00:00.000Z');
  });

  it('reads a time without a date on the day before when it is later than receipt', () => {
    const timeOnly = '[현대카드C]-승인\n강대권님\n18:22\n3,780원(일시불)\n온누리조은약국';
    const result = parseCardNotification(timeOnly, { receivedAt: new Date('2026-04-21T00:05:00+09:00') });
    expect(fieldOf(result, 'occurredAt')).toBe('2026-04-20T09:22:00.000Z');
  });

  it('reads the clock in the given time zone', () => {
    const result = parseCardNotification(text, {
      receivedAt: new Date('2026-01-01T06:00:00Z'),
      timeZone: 'America/New_York',
    });
    expect(fieldOf(result, 'occurredAt')).toBe('2026-01-01T04:59:00.000Z');
  });

  it('gives no instant for an impossible date', () => {
    const impossible = text.replace('12/31 23:59', '13/45 25:99');
    const result = parseCardNotification(impossible, { receivedAt: new Date('2026-01-01T00:00:00Z') });
    expect(fieldOf(result, 'occurredAt')).toBeNull();
  });
});

describe('written forms', () => {
  const receivedAt = new Date('2026-03-14T12:00:00+09:00');
  const parse = (text: string) => parseCardNotification(text, { receivedAt });

  it.each([
    ['삼성1234해외승인 홍*동\nUS$12.34\n03/14 11:00 STEAM', 'USD', '12.34'],
    ['삼성1234해외승인 홍*동\n12.34달러\n03/14 11:00 STEAM', 'USD', '12.34'],
    ['KB국민카드1234승인\n홍*동님\nJPY 1,200 해외\n03/14 11:00\nLAWSON', 'JPY', '1200'],
    ['Purchase approved: USD 8.50 at UBER TRIP on card ending in 4321', 'USD', '8.50'],
  ])('reads the foreign amount of %j', (text, currency, originalAmount) => {
    expect(parse(text)).toMatchObject({ ignored: false, amount: null, currency, originalAmount });
  });

  it.each([
    ['IBK체크(1234)승인 홍*동 8,500원 일시불 03/14 11:00 한솥도시락', 'IBK'],
    ['케이뱅크 체크카드 승인 3,000원 03/14 11:00 CU', '케이뱅크'],
    ['우체국체크카드 승인 3,000원 03/14 11:00 CU', '우체국'],
  ])('names the issuer of %j', (text, company) => {
    expect(parse(text)).toMatchObject({ ignored: false, cardCompany: company, amount: expect.any(Number) });
  });

  it('leaves an instalment outside 2..24 months unread', () => {
    expect(parse('롯데카드 홍*동님 65,550원 할부(36) 03/14 11:00 (주)인터파크')).toMatchObject({
      installmentMonths: null,
    });
    expect(parse('롯데카드 홍*동님 65,550원 할부(03) 03/14 11:00 (주)인터파크')).toMatchObject({
      installmentMonths: 3,
    });
  });

  it('leaves an amount beyond the safe integer range unread', () => {
    expect(parse('신한카드(1234)승인 홍*동 99999999999999999999원(일시불)03/14 11:00 스타벅스')).toMatchObject({
      ignored: false,
      amount: null,
      merchant: '스타벅스',
    });
  });

  it('reads only four unmasked digits as the card number', () => {
    expect(parse('[Web발신]\nNH카드1*3*승인\n홍*동\n12,350원 체크\n03/14 11:00\nGS25')).toMatchObject({
      cardLast4: null,
    });
    expect(parse('스타벅스\n12,300원 승인\n홍*동 롯데1234*5678*\n일시불 03/14 11:00\n누적100,000원')).toMatchObject({
      cardLast4: null,
      merchant: '스타벅스',
    });
  });

  it.each([
    '[Web발신]\n신한카드 6개월 무이자 이벤트 안내 50,000원 이상 결제 시 스타벅스 쿠폰',
    '[Web발신]\n[삼성카드] 03/14 12:00 홍*동님 카드 이용 한도 500,000원 남았습니다',
    '[Web발신]\n[KB국민카드] 홍*동님 승인거절 03/14 12:00 12,000원 한도초과',
  ])('ignores %j, which only looks like an approval', (text) => {
    expect(parse(text)).toEqual({ ignored: true });
  });

  it('ignores empty and oversized texts', () => {
    expect(parse('')).toEqual({ ignored: true });
    expect(parse('   \n\r\n  ')).toEqual({ ignored: true });
    expect(parse('신한카드(1234)승인 1,000원 '.repeat(200))).toEqual({ ignored: true });
  });
});

/**
 * Issue 19: one property per layout family. The merchant, holder, card digits, amount and time vary; the
 * merchant must come out whole wherever the layout puts it (CN10), whatever its words: names made of
 * arbitrary syllables, containing 취소, 승인 or 에서, never looked up in a list.
 */
describe('layout families (CN10)', () => {
  const receivedAt = new Date('2026-12-31T23:59:00+09:00');
  const parse = (text: string) => parseCardNotification(text, { receivedAt });
  const SYLLABLES = [...'가다라마바사아자차카타파스벅커피빵떡꽃길숲별달솔봄빛고래'];
  const word = fc
    .array(fc.constantFrom(...SYLLABLES), { minLength: 2, maxLength: 5 })
    .map((syllables) => syllables.join(''));
  /** A shop name: one or two words, some starting with or holding 취소, 승인 or 에서 ("취소전문점", "바다에서 온 횟집"). */
  const merchant = fc
    .tuple(
      fc.constantFrom('', '취소', '승인', '(주)'),
      word,
      fc.option(word, { nil: undefined }),
      fc.constantFrom('', '에서 온'),
    )
    .map(([prefix, first, second, middle]) =>
      [`${prefix}${first}`, middle ? `${middle} ${second ?? '집'}` : second].filter(Boolean).join(' '),
    );
  const englishMerchant = fc
    .array(fc.stringMatching(/^[A-Z]{3,9}$/), { minLength: 1, maxLength: 3 })
    .map((words) => words.join(' '));
  const holder = fc.oneof(
    fc.tuple(fc.constantFrom(...'김이박최정'), fc.constantFrom(...'민수영지현')).map(([a, b]) => `${a}*${b}`),
    fc
      .tuple(fc.constantFrom(...'김이박최정'), fc.constantFrom(...'민수영지현'), fc.constantFrom(...'호준아림'))
      .map((s) => s.join('')),
  );
  const won = fc.integer({ min: 100, max: 9_999_999 });
  const grouped = (amount: number) => amount.toLocaleString('en-US');
  const digits4 = fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, '0'));
  const clock = fc
    .record({
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 28 }),
      hour: fc.integer({ min: 0, max: 23 }),
      minute: fc.integer({ min: 0, max: 59 }),
    })
    .map(({ month, day, hour, minute }) => {
      const two = (n: number) => String(n).padStart(2, '0');
      return `${two(month)}/${two(day)} ${two(hour)}:${two(minute)}`;
    });
  const RUNS = { numRuns: 150 };

  it('labelled lines: the 사용처 / 가맹점 value, never a label', () => {
    fc.assert(
      fc.property(merchant, holder, won, clock, fc.boolean(), (shop, name, amount, at, colon) => {
        const text = colon
          ? `[신한카드] 승인\n${name}님\n금액 : ${grouped(amount)}원\n일시 : ${at}\n가맹점 : ${shop}`
          : `[Web발신]\n금액\n${grouped(amount)}원\n카드\n하나카드*\n손님명\n${name}\n거래종류\n승인\n거래구분\n일시불\n사용처\n${shop}\n거래시간\n${at}`;
        expect(parse(text)).toMatchObject({
          kind: 'APPROVAL',
          cardCompany: colon ? '신한' : '하나',
          amount,
          merchant: shop,
        });
      }),
      RUNS,
    );
  });

  it('bank-app card payments: the line after amount and time, not the holder', () => {
    fc.assert(
      fc.property(merchant, holder, digits4, won, clock, (shop, name, last4, amount, at) => {
        const text = `[Web발신]\n[카카오뱅크] 카드결제\n${name}(${last4})\n${at}\n${grouped(amount)}원\n${shop}\n잔액 ${grouped(amount + 1000)}원`;
        expect(parse(text)).toMatchObject({
          kind: 'APPROVAL',
          cardCompany: '카카오뱅크',
          cardLast4: last4,
          amount,
          merchant: shop,
        });
      }),
      RUNS,
    );
  });

  it('pay-app sentences: the part before 에서, not the headline', () => {
    fc.assert(
      fc.property(merchant, won, fc.boolean(), (shop, amount, cancelled) => {
        const headline = cancelled ? '결제가 취소되었어요' : '결제가 완료되었어요';
        const text = `${headline}\n${shop}에서 ${grouped(amount)}원을 결제했어요.`;
        expect(parse(text)).toMatchObject({ kind: cancelled ? 'CANCELLATION' : 'APPROVAL', amount, merchant: shop });
      }),
      RUNS,
    );
  });

  it('corporate cards: the merchant, not the bracketed company; foreign ones too', () => {
    fc.assert(
      fc.property(
        word,
        holder,
        digits4,
        won,
        clock,
        merchant,
        englishMerchant,
        fc.boolean(),
        (company, name, last4, amount, at, shop, abroad, foreign) => {
          const text = foreign
            ? `[Web발신]\n[${company}] 해외승인\n${last4} ${name}님\n${at}\nUSD ${amount % 1000}.${String(amount % 100).padStart(2, '0')}\n${abroad}`
            : `[Web발신]\n[${company}] 승인\n${last4} ${name}님\n${at}\n${grouped(amount)}원 일시불\n${shop}`;
          expect(parse(text)).toMatchObject({
            kind: 'APPROVAL',
            cardLast4: last4,
            currency: foreign ? 'USD' : 'KRW',
            merchant: foreign ? abroad : shop,
          });
        },
      ),
      RUNS,
    );
  });

  it("a capitalised merchant that ends in an issuer's Latin letters names no issuer (ANH is not NH)", () => {
    for (const shop of ['ANH', 'SKB MART', 'XIBK', 'OMG STORE', 'PLAYKAKAOBANK', 'AMAZONSHINHAN']) {
      const text = `[Web발신]\n[가가] 해외승인\n0000 김민호님\n01/01 00:00\nUSD 100.00\n${shop}`;
      expect(parse(text)).toMatchObject({ kind: 'APPROVAL', cardCompany: null, currency: 'USD', merchant: shop });
    }
  });

  it('extra lines: local-currency use, unmasked names and 취소 inside a name change nothing', () => {
    fc.assert(
      fc.property(merchant, word, holder, won, won, clock, (shop, shopWord, name, amount, local, at) => {
        const nh = `[Web발신]\nNH카드1*2*승인\n${name} ${grouped(amount)}원 체크\n(지역화폐 ${grouped(local)}원 사용)\n${at}\n${shop}`;
        expect(parse(nh)).toMatchObject({ kind: 'APPROVAL', cardCompany: 'NH농협', amount, merchant: shop });
        const kb = `KB국민카드1*8*승인\n${name}\n${grouped(amount)}원 일시불\n${at}\n취소${shopWord}\n누적${grouped(amount + local)}원`;
        expect(parse(kb)).toMatchObject({ kind: 'APPROVAL', amount, merchant: `취소${shopWord}` });
        // A card-app push without approval word: its title is not the merchant (CN13).
        const titled = `온라인쇼핑\n취소${shopWord} ${shopWord}\n${grouped(amount)}원\n2026.${at.replace('/', '.')}:41`;
        expect(parse(titled)).toMatchObject({ kind: 'APPROVAL', amount, merchant: `취소${shopWord} ${shopWord}` });
      }),
      RUNS,
    );
  });

  it('product names: LOCA is 롯데, "현대 <product> 승인" is 현대; English alerts', () => {
    fc.assert(
      fc.property(
        merchant,
        holder,
        won,
        clock,
        englishMerchant,
        fc.stringMatching(/^[A-Z][a-z]{2,6}\d{0,3}$/),
        (shop, name, amount, at, abroad, product) => {
          const loca = `\n${shop}\n${grouped(amount)}원 승인\nLOCA ${product}(7*2*)\n일시불, ${at}`;
          expect(parse(loca)).toMatchObject({ kind: 'APPROVAL', cardCompany: '롯데', amount, merchant: shop });
          const hyundai = `[Web발신]\n현대 ${product} 승인\n${name}\n${grouped(amount)}원 일시불\n${at}\n${shop}`;
          expect(parse(hyundai)).toMatchObject({ kind: 'APPROVAL', cardCompany: '현대', amount, merchant: shop });
          const amex = `American Express: A charge of $${amount % 1000}.50 was just approved on your Card ending in 1${String(amount % 10000).padStart(4, '0')} at ${abroad}.`;
          expect(parse(amex)).toMatchObject({
            currency: 'USD',
            cardLast4: String(amount % 10000).padStart(4, '0'),
            merchant: abroad,
          });
        },
      ),
      RUNS,
    );
  });
});

const CARD_TEXT_PIECES = [
  '[Web발신]',
  '승인',
  '취소',
  '원',
  '누적',
  '잔액',
  '할부',
  '개월',
  '일시불',
  'USD',
  'US$',
  '$',
  '달러',
  '삼성',
  '신한카드',
  'KB국민',
  '(1234)',
  '1*2*',
  '홍*동님',
  '12/31',
  '23:59',
  '99999999999999999999',
  '1,234',
  '.',
  '-',
  '\n',
  ' ',
  '０１２',
  '（주）',
];

function assertInRange(result: ParsedCardNotification): void {
  if (result.ignored) return;
  const { amount, installmentMonths, occurredAt, cumulativeAmount } = result;
  expect(amount === null || (Number.isSafeInteger(amount) && amount > 0)).toBe(true);
  expect(installmentMonths === null || (installmentMonths >= 2 && installmentMonths <= 24)).toBe(true);
  expect(occurredAt === null || !Number.isNaN(Date.parse(occurredAt))).toBe(true);
  expect(cumulativeAmount === null || (Number.isSafeInteger(cumulativeAmount) && cumulativeAmount >= 0)).toBe(true);
  expect(result.currency).toMatch(/^[A-Z]{3}$/);
  expect(result.cardLast4 === null || /^\d{4}$/.test(result.cardLast4)).toBe(true);
  expect(result.cardCompany === null || CARD_COMPANIES.includes(result.cardCompany)).toBe(true);
  expect(result.originalAmount === null || /^\d+(?:\.\d+)?$/.test(result.originalAmount)).toBe(true);
  expect(result.kind === 'APPROVAL' || result.kind === 'CANCELLATION').toBe(true);
}

describe('garbage input', () => {
  const receivedAt = new Date('2026-03-14T12:00:00+09:00');

  it('never throws on arbitrary strings and returns in-range values', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        assertInRange(parseCardNotification(text, { receivedAt }));
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on strings made of card-notice pieces and returns in-range values', () => {
    const pieces = fc.array(fc.constantFrom(...CARD_TEXT_PIECES), { maxLength: 40 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(pieces, (text) => {
        assertInRange(parseCardNotification(text, { receivedAt }));
      }),
      { numRuns: 3000 },
    );
  });
});
