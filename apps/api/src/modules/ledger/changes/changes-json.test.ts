import type { Changes } from '@nestegg/contract';
import { ResponseValidationError } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { ContractDriftError } from '../../../lib/response-check.js';
import { changesJson, checkAgainstContract } from './routes.js';

const head: Changes = {
  cursor: 'MTI',
  hasMore: false,
  changed: {
    entries: [],
    wallets: [],
    categories: [{ id: 3, name: '식비', type: 'EXPENSE', parentId: null, sortOrder: 0 }],
    tags: [],
    recurrings: [],
    quickEntries: [],
    budgets: [],
    onetimeBudgets: [],
    budgetIncomes: [],
  },
  deleted: [{ entity: 'tag', id: 9 }],
};

const entry = {
  id: 7,
  type: 'EXPENSE',
  amount: 1370,
  date: '2026-11-20',
  memo: 'Blue Bottle',
  category: '카페',
  accountId: null,
  tags: ['여행'],
  currency: 'USD',
  originalAmount: '1',
  exchangeRate: '1370.000731',
  installmentMonths: null,
  pending: false,
  notifKey: null,
  recurringId: null,
  createdAt: '2026-11-20T09:30:00.123Z',
  updatedAt: '2026-11-20T09:30:00.123Z',
};

/** Entries' JSON as the driver hands the statement's column over: UTF-8 bytes. */
const utf8 = (entries: unknown[]) => Buffer.from(JSON.stringify(entries));

describe('the feed answer written as JSON text (L35, P29)', () => {
  it('is the head with the entries spliced in, in the contract key order', () => {
    const text = changesJson({ head, entriesJson: utf8([entry]) }).toString();
    expect(JSON.parse(text)).toEqual({ ...head, changed: { ...head.changed, entries: [entry] } });
    expect(Object.keys(JSON.parse(text))).toEqual(['cursor', 'hasMore', 'changed', 'deleted']);
    expect(() => checkAgainstContract(text)).not.toThrow();
  });

  it('fails the check outside production when an entry written by the database drifts from the contract', () => {
    const extra = changesJson({ head, entriesJson: utf8([{ ...entry, memberId: 1 }]) });
    expect(() => checkAgainstContract(extra.toString())).toThrow(ContractDriftError);
    const padded = changesJson({ head, entriesJson: utf8([{ ...entry, originalAmount: '1.0000x' }]) });
    expect(() => checkAgainstContract(padded.toString())).toThrow(ResponseValidationError);
  });
});
