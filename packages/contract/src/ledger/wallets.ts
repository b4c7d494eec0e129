/** Wallets (accounts, including loans and manual-valuation accounts) and net worth. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  coercedInteger,
  DateSchema,
  decimalString,
  IdParamSchema,
  IdSchema,
  InstantSchema,
  listOf,
  MoneySchema,
  meta,
  NonNegativeMoneySchema,
  problems,
  ReorderBodySchema,
  routerOptions,
  SortOrderSchema,
  withCommonProblems,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { nonBlankText, text } from '../text.js';
import { WALLET_NAME_MAX } from './shared.js';

const c = initContract();

export const walletTypes = [
  'CASH',
  'BANK',
  'CARD',
  'CHECK_CARD',
  'SAVINGS',
  'INVESTMENT',
  'PENSION',
  'LOAN',
  'MINUS',
  'OTHER',
] as const;
export const WalletTypeSchema = z.enum(walletTypes);
export type WalletType = z.infer<typeof WalletTypeSchema>;

export const LoanMethodSchema = z.enum(['EQUAL_PAYMENT', 'EQUAL_PRINCIPAL', 'BULLET']);
export type LoanMethod = z.infer<typeof LoanMethodSchema>;
/** Annual interest in percent, numeric(7,4), e.g. `4.25`. */
export const LoanRateSchema = decimalString(3, 4);
export const LOAN_MONTHS_MAX = 600;

/**
 * How many wallets of each type a FREE member may hold (PREMIUM and ADMIN: no limit). One map, so bonus
 * slots (the spec plans up to 5) change it in one place.
 */
export const FREE_WALLET_LIMITS: Readonly<Record<WalletType, number>> = Object.fromEntries(
  walletTypes.map((type) => [type, 3]),
) as Record<WalletType, number>;

/** No `:` (the encrypted form's separator) and nothing a bank or card number does not use. */
const ACCOUNT_NUMBER_PATTERN = /^[0-9A-Za-z ./-]*$/;

export const WalletFieldsSchema = z.object({
  name: nonBlankText().max(WALLET_NAME_MAX).describe('Unique per member'),
  type: WalletTypeSchema,
  accountNumber: text()
    .trim()
    .max(50)
    .regex(ACCOUNT_NUMBER_PATTERN, 'letters, digits, spaces and . - / only')
    .nullable()
    .optional()
    .describe('Stored encrypted; empty clears it'),
  cardCompany: text().trim().max(30).nullable().optional().describe('Card issuer, matched against card notifications'),
  openingBalance: MoneySchema.optional().describe(
    'The balance to start from (default 0); confirmed entries on the wallet are added to it. May be negative.',
  ),
  loanAmount: NonNegativeMoneySchema.nullable()
    .optional()
    .describe(
      'LOAN: the executed loan amount; MINUS: the credit limit. Loan terms are for LOAN and MINUS wallets only. LOAN: amount, method, months and start come all together (rate optional, null = 0 %), and the wallet is valued by its amortization schedule. MINUS (a credit line): the limit is required with any other term, months and start (the term) come together, the method is null or BULLET; the wallet is still valued by its balance (what is drawn)',
    ),
  loanRate: LoanRateSchema.nullable()
    .optional()
    .describe('Annual interest, percent (MINUS: on the drawn balance); null = 0 %'),
  loanMethod: LoanMethodSchema.nullable()
    .optional()
    .describe('LOAN: the repayment method. MINUS: a credit line has none: null or BULLET (repaid at maturity)'),
  loanMonths: z
    .number()
    .int()
    .min(1)
    .max(LOAN_MONTHS_MAX)
    .nullable()
    .optional()
    .describe('LOAN: the number of monthly payments; MINUS: the term of the line (it matures loanStart + loanMonths)'),
  loanStart: DateSchema.nullable().optional().describe("LOAN: the execution date; MINUS: the start of the line's term"),
  manualValuation: z
    .boolean()
    .optional()
    .describe('Value entered by hand (e.g. a pension); default false. The wallet then counts at currentValue'),
  currentValue: MoneySchema.nullable()
    .optional()
    .describe('Manual valuation (null = 0); each day keeps its last value for the net-worth trend'),
});
export const CreateWalletRequestSchema = WalletFieldsSchema;
export type CreateWalletRequest = z.infer<typeof CreateWalletRequestSchema>;
export const UpdateWalletRequestSchema = WalletFieldsSchema.partial();
export type UpdateWalletRequest = z.infer<typeof UpdateWalletRequestSchema>;

/**
 * What a credit line (a MINUS wallet with a limit) shows, derived from its terms and balance. Whole units; the
 * interest is truncated (원 미만 절사).
 */
export const CreditLineSchema = z.object({
  limit: NonNegativeMoneySchema.describe('The credit limit (loanAmount)'),
  drawn: NonNegativeMoneySchema.describe('What is drawn: minus the balance when it is negative, else 0'),
  available: NonNegativeMoneySchema.describe('limit − drawn, never below 0'),
  overLimit: NonNegativeMoneySchema.describe('drawn − limit when more than the limit is drawn, else 0'),
  monthlyInterestEstimate: NonNegativeMoneySchema.describe(
    "One month of interest on today's drawn balance: drawn × loanRate / 100 / 12, truncated to whole units (the bank charges it by the day, so a month's actual interest differs with its days and draws)",
  ),
  maturityDate: DateSchema.nullable().describe(
    'When the line matures (is up for renewal): loanStart + loanMonths, clamped to a shorter month; null without a term',
  ),
});
export type CreditLine = z.infer<typeof CreditLineSchema>;

export const WalletSchema = z.object({
  id: IdSchema,
  name: text(),
  type: WalletTypeSchema,
  accountNumber: text().nullable(),
  cardCompany: text().nullable(),
  openingBalance: MoneySchema,
  balance: MoneySchema.describe('Opening balance plus the confirmed entries on the wallet'),
  sortOrder: SortOrderSchema,
  loanAmount: NonNegativeMoneySchema.nullable(),
  loanRate: LoanRateSchema.nullable(),
  loanMethod: LoanMethodSchema.nullable(),
  loanMonths: z.number().int().nullable(),
  loanStart: DateSchema.nullable(),
  manualValuation: z.boolean(),
  currentValue: MoneySchema.nullable(),
  creditLine: CreditLineSchema.nullable().describe(
    'A MINUS wallet with a credit limit: available credit and interest on the drawn balance; null otherwise',
  ),
  createdAt: InstantSchema,
  updatedAt: InstantSchema,
});
export type Wallet = z.infer<typeof WalletSchema>;
export const WalletListSchema = listOf(WalletSchema);
export type WalletList = z.infer<typeof WalletListSchema>;

// ---------------------------------------------------------------------------
// Net worth
// ---------------------------------------------------------------------------

/**
 * A wallet's value: a manual-valuation wallet counts at its `currentValue`; a LOAN wallet with loan terms at
 * minus the principal its schedule still owes; any other wallet at its `balance` (MINUS and CARD wallets may
 * be negative; a MINUS wallet counts what is drawn, whatever its limit). Positive values are assets, negative
 * ones liabilities.
 */
export const NetWorthSchema = z.object({
  asOf: DateSchema.describe("Today in the service's time zone"),
  assets: NonNegativeMoneySchema.describe('Sum of the wallets of positive value'),
  liabilities: NonNegativeMoneySchema.describe('Sum of the wallets of negative value, as a positive amount'),
  netWorth: MoneySchema.describe('assets − liabilities'),
  byType: z.array(z.object({ type: WalletTypeSchema, amount: MoneySchema })).describe('Value per wallet type'),
});
export type NetWorth = z.infer<typeof NetWorthSchema>;

export const NetWorthTrendQuerySchema = z.object({
  unit: z.enum(['WEEK', 'MONTH']).default('MONTH').describe('WEEK: weeks starting Monday; MONTH: calendar months'),
  weeks: coercedInteger(1, 104).default(13).describe('Number of weekly points (unit=WEEK)'),
  months: coercedInteger(1, 120).default(12).describe('Number of monthly points (unit=MONTH)'),
});
export type NetWorthTrendQuery = z.infer<typeof NetWorthTrendQuerySchema>;

export const NetWorthPointSchema = z.object({
  start: DateSchema.describe('First day of the week (Monday) or month'),
  assets: NonNegativeMoneySchema,
  liabilities: NonNegativeMoneySchema,
  netWorth: MoneySchema,
});
export type NetWorthPoint = z.infer<typeof NetWorthPointSchema>;
export const NetWorthTrendSchema = z.object({
  unit: z.enum(['WEEK', 'MONTH']),
  points: z
    .array(NetWorthPointSchema)
    .describe(
      "Oldest first; each point is the value at the end of its period (today for the current one): entries up to that day, the last manual value recorded by then, loans by their schedule; a wallet's opening balance counts from the day it was created",
    ),
});
export type NetWorthTrend = z.infer<typeof NetWorthTrendSchema>;

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

export const walletsContract = withCommonProblems(
  c.router(
    {
      list: {
        method: 'GET',
        path: '/api/account/wallets',
        summary: 'Wallets by sortOrder',
        responses: { 200: WalletListSchema },
        metadata: meta('login'),
      },
      create: {
        method: 'POST',
        path: '/api/account/wallets',
        summary: 'Create a wallet (goes last; FREE members have a per-type limit: 400 WALLET_LIMIT)',
        body: CreateWalletRequestSchema,
        responses: { 201: WalletSchema, ...problems('WALLET_LIMIT', 'DUPLICATE_NAME', 'AMOUNT_OUT_OF_RANGE') },
        metadata: meta('login'),
      },
      reorder: {
        method: 'PUT',
        path: '/api/account/wallets/reorder',
        summary: 'New order of all wallets',
        body: ReorderBodySchema,
        responses: { 204: c.noBody(), ...problems('INVALID_REORDER') },
        metadata: meta('login'),
      },
      get: {
        method: 'GET',
        path: '/api/account/wallets/:id',
        summary: 'One wallet',
        pathParams: IdParamSchema,
        responses: { 200: WalletSchema },
        metadata: meta('login'),
      },
      update: {
        method: 'PUT',
        path: '/api/account/wallets/:id',
        summary: 'Change a wallet (omitted fields are kept)',
        pathParams: IdParamSchema,
        body: UpdateWalletRequestSchema,
        responses: { 200: WalletSchema, ...problems('WALLET_LIMIT', 'DUPLICATE_NAME', 'AMOUNT_OUT_OF_RANGE') },
        metadata: meta('login'),
      },
      delete: {
        method: 'DELETE',
        path: '/api/account/wallets/:id',
        summary: 'Delete a wallet (its entries keep no wallet)',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody() },
        metadata: meta('login'),
      },
      netWorth: {
        method: 'GET',
        path: '/api/account/networth',
        summary: 'Current assets, liabilities and net worth',
        responses: { 200: NetWorthSchema },
        metadata: meta('login'),
      },
      netWorthTrend: {
        method: 'GET',
        path: '/api/account/networth/trend',
        summary: 'Net worth trend: monthly by default, weekly with unit=WEEK (default 13 weeks)',
        query: NetWorthTrendQuerySchema,
        responses: { 200: NetWorthTrendSchema },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);

/** Component names of wallets and net worth (see schema-names.ts). */
export const walletsNamedSchemas: NamedSchemas = {
  Wallet: WalletSchema,
  WalletList: WalletListSchema,
  NetWorth: NetWorthSchema,
  NetWorthTrend: NetWorthTrendSchema,
  NetWorthPoint: NetWorthPointSchema,
  WalletType: WalletTypeSchema,
  LoanMethod: LoanMethodSchema,
  CreditLine: CreditLineSchema,
};
