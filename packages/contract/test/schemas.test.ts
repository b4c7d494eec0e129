import { describe, expect, it } from 'vitest';
import {
  BackupSchema,
  CopyBudgetsRequestSchema,
  CreateEntryRequestSchema,
  CreateRecurringRequestSchema,
  contract,
  DateSchema,
  EntryListQuerySchema,
  FxRateQuerySchema,
  IdParamSchema,
  LoanRateSchema,
  LoginRequestSchema,
  MoneySchema,
  PageQuerySchema,
  ProfileImageRequestSchema,
  QuantitySchema,
  SignupRequestSchema,
  StoreNotificationRequestSchema,
  TagGroupQuerySchema,
  UpdateEntryRequestSchema,
} from '../src/index.js';

const entry = { type: 'EXPENSE', amount: 12_000, date: '2024-05-01' } as const;

describe('entries', () => {
  it('accepts installment months 2..24 on expenses only', () => {
    for (const months of [2, 12, 24, null]) {
      expect(CreateEntryRequestSchema.safeParse({ ...entry, installmentMonths: months }).success, String(months)).toBe(
        true,
      );
    }
    for (const months of [0, 1, 25, 3.5]) {
      expect(CreateEntryRequestSchema.safeParse({ ...entry, installmentMonths: months }).success, String(months)).toBe(
        false,
      );
    }
    expect(CreateEntryRequestSchema.safeParse({ ...entry, type: 'INCOME', installmentMonths: 3 }).success).toBe(false);
  });

  it('requires originalAmount and exchangeRate with a currency', () => {
    expect(CreateEntryRequestSchema.safeParse({ ...entry, currency: 'USD' }).success).toBe(false);
    expect(
      CreateEntryRequestSchema.safeParse({ ...entry, currency: 'USD', originalAmount: '9.99', exchangeRate: '1350.25' })
        .success,
    ).toBe(true);
    expect(CreateEntryRequestSchema.safeParse({ ...entry, originalAmount: '9.99' }).success).toBe(false);
    expect(
      CreateEntryRequestSchema.safeParse({ ...entry, currency: 'usd', originalAmount: '1', exchangeRate: '1' }).success,
    ).toBe(false);
    // an update may change the amount of a foreign entry without resending the currency
    expect(UpdateEntryRequestSchema.safeParse({ originalAmount: '10.50' }).success).toBe(true);
    expect(UpdateEntryRequestSchema.safeParse({ currency: 'EUR', exchangeRate: '1450' }).success).toBe(false);
  });

  it('parses list filters from query strings', () => {
    const q = EntryListQuerySchema.parse({ page: '2', pending: 'true', accountId: '7', from: '2024-01-01' });
    expect(q).toMatchObject({ page: 2, size: 20, pending: true, accountId: 7, from: '2024-01-01' });
    expect(EntryListQuerySchema.parse({ pending: 'false' }).pending).toBe(false);
    expect(EntryListQuerySchema.safeParse({ pending: 'yes' }).success).toBe(false);
  });
});

describe('pagination', () => {
  it('defaults to page 1 of 20 and caps the size at 100', () => {
    expect(PageQuerySchema.parse({})).toEqual({ page: 1, size: 20 });
    expect(PageQuerySchema.parse({ page: '3', size: '100' })).toEqual({ page: 3, size: 100 });
    expect(PageQuerySchema.safeParse({ size: '101' }).success).toBe(false);
    expect(PageQuerySchema.safeParse({ size: '0' }).success).toBe(false);
    expect(PageQuerySchema.safeParse({ page: '0' }).success).toBe(false);
    expect(PageQuerySchema.safeParse({ page: '1.5' }).success).toBe(false);
  });

  it('coerces path ids and rejects non-positive ones', () => {
    expect(IdParamSchema.parse({ id: '42' })).toEqual({ id: 42 });
    expect(IdParamSchema.safeParse({ id: '0' }).success).toBe(false);
    expect(IdParamSchema.safeParse({ id: 'abc' }).success).toBe(false);
    expect(IdParamSchema.safeParse({ id: '2147483648' }).success).toBe(false);
  });
});

describe('auth bodies', () => {
  const signup = { email: ' Someone@Example.com ', password: 'correct horse', displayName: 'Kim' };

  it('accepts the honeypot field on sign-up and normalises the e-mail', () => {
    const parsed = SignupRequestSchema.parse({ ...signup, website: 'http://spam.example' });
    expect(parsed.website).toBe('http://spam.example');
    expect(parsed.email).toBe('someone@example.com');
    expect(SignupRequestSchema.parse(signup).website).toBeUndefined();
  });

  it('enforces password and display name bounds on sign-up', () => {
    expect(SignupRequestSchema.safeParse({ ...signup, password: 'short' }).success).toBe(false);
    expect(SignupRequestSchema.safeParse({ ...signup, password: 'x'.repeat(129) }).success).toBe(false);
    expect(SignupRequestSchema.safeParse({ ...signup, displayName: '   ' }).success).toBe(false);
    expect(SignupRequestSchema.safeParse({ ...signup, displayName: 'x'.repeat(31) }).success).toBe(false);
  });

  it('carries rememberMe on login', () => {
    expect(LoginRequestSchema.parse({ email: 'a@b.co', password: 'x', rememberMe: true }).rememberMe).toBe(true);
    expect(LoginRequestSchema.safeParse({ email: 'a@b.co', password: 'x', rememberMe: 'yes' }).success).toBe(false);
  });

  it('takes an image data URL or an empty string as profile image', () => {
    expect(ProfileImageRequestSchema.safeParse({ dataUrl: '' }).success).toBe(true);
    expect(ProfileImageRequestSchema.safeParse({ dataUrl: 'data:image/png;base64,iVBORw0KGgo=' }).success).toBe(true);
    expect(ProfileImageRequestSchema.safeParse({ dataUrl: 'https://example.com/a.png' }).success).toBe(false);
  });
});

describe('money, dates and decimals', () => {
  it('money is a safe integer, never a float', () => {
    expect(MoneySchema.safeParse(1500).success).toBe(true);
    expect(MoneySchema.safeParse(-1500).success).toBe(true);
    expect(MoneySchema.safeParse(15.5).success).toBe(false);
    expect(MoneySchema.safeParse(Number.MAX_SAFE_INTEGER + 2).success).toBe(false);
    expect(MoneySchema.safeParse('1500').success).toBe(false);
  });

  it('dates are real calendar days', () => {
    expect(DateSchema.safeParse('2024-02-29').success).toBe(true);
    expect(DateSchema.safeParse('2023-02-29').success).toBe(false);
    expect(DateSchema.safeParse('2024-13-01').success).toBe(false);
    expect(DateSchema.safeParse('2024-5-1').success).toBe(false);
  });

  it('quantities have at most 6 fractional digits and are positive', () => {
    expect(QuantitySchema.safeParse('0.000001').success).toBe(true);
    expect(QuantitySchema.safeParse('123456789012.123456').success).toBe(true);
    expect(QuantitySchema.safeParse('0.0000001').success).toBe(false);
    expect(QuantitySchema.safeParse('1234567890123').success).toBe(false);
    expect(QuantitySchema.safeParse('0').success).toBe(false);
    expect(QuantitySchema.safeParse('-1').success).toBe(false);
    expect(QuantitySchema.safeParse(1).success).toBe(false);
  });

  it('loan rates fit numeric(7,4) and fx codes are upper-case', () => {
    expect(LoanRateSchema.safeParse('4.25').success).toBe(true);
    expect(LoanRateSchema.safeParse('4.12345').success).toBe(false);
    expect(FxRateQuerySchema.safeParse({ from: 'USD', to: 'KRW' }).success).toBe(true);
    expect(FxRateQuerySchema.safeParse({ from: 'usd', to: 'KRW' }).success).toBe(false);
  });
});

describe('other bodies', () => {
  it('recurring schedules take their day fields from the start date when omitted, and check their ranges', () => {
    const base = { name: 'Rent', type: 'EXPENSE', amount: 500_000, startDate: '2024-01-01' } as const;
    expect(CreateRecurringRequestSchema.safeParse({ ...base, frequency: 'MONTHLY', dayOfMonth: 25 }).success).toBe(
      true,
    );
    expect(CreateRecurringRequestSchema.safeParse({ ...base, frequency: 'MONTHLY' }).success).toBe(true);
    expect(CreateRecurringRequestSchema.safeParse({ ...base, frequency: 'WEEKLY', dayOfWeek: 8 }).success).toBe(false);
    expect(CreateRecurringRequestSchema.safeParse({ ...base, frequency: 'YEARLY', monthOfYear: 13 }).success).toBe(
      false,
    );
    expect(
      CreateRecurringRequestSchema.safeParse({ ...base, frequency: 'MONTHLY', endDate: '2023-12-31' }).success,
    ).toBe(false);
  });

  it('refuses an empty backup and accepts one with data', () => {
    expect(BackupSchema.safeParse({}).success).toBe(false);
    expect(BackupSchema.safeParse({ accounts: [], entries: [] }).success).toBe(false);
    const parsed = BackupSchema.parse({
      accounts: [{ name: 'Wallet', type: 'CASH' }],
      entries: [{ type: 'EXPENSE', amount: 5000, date: '2024-03-02', account: 'Wallet', tags: ['food'] }],
    });
    expect(parsed.version).toBe(1);
    expect(parsed.tags).toEqual([]);
    expect(parsed.accounts[0]!.balance).toBe(0);
  });

  it('copying budgets needs two different months', () => {
    expect(CopyBudgetsRequestSchema.safeParse({ fromYear: 2024, fromMonth: 1, toYear: 2024, toMonth: 1 }).success).toBe(
      false,
    );
    expect(CopyBudgetsRequestSchema.safeParse({ fromYear: 2024, fromMonth: 1, toYear: 2024, toMonth: 2 }).success).toBe(
      true,
    );
  });

  it('treats a blank tag-group board as every board', () => {
    expect(TagGroupQuerySchema.parse({ category: '' }).category).toBeUndefined();
    expect(TagGroupQuerySchema.parse({}).category).toBeUndefined();
    expect(TagGroupQuerySchema.parse({ category: 'tips' }).category).toBe('tips');
    expect(TagGroupQuerySchema.safeParse({ category: 'news' }).success).toBe(false);
  });

  it('keeps unknown fields of the store push envelope', () => {
    const body = {
      message: { data: 'eyJ2ZXJzaW9uIjoiMS4wIn0=', messageId: '136969346945', extra: 1 },
      subscription: 's',
    };
    expect(StoreNotificationRequestSchema.parse(body)).toEqual(body);
  });

  it('declares multipart uploads and a binary image', () => {
    expect(contract.board.uploadImage.contentType).toBe('multipart/form-data');
    expect(contract.ledger.receipts.recognize.contentType).toBe('multipart/form-data');
    expect(contract.board.getImage.metadata.binaryResponse).toBe('image/*');
  });
});
