import { initContract, ResponseValidationError } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContractDriftError, firstDifference, withResponseCheck } from './response-check.js';

const c = initContract();
const contract = c.router({
  item: {
    method: 'GET',
    path: '/item',
    responses: {
      200: z.object({ id: z.number(), note: z.string().nullable(), tags: z.array(z.string()).default([]) }),
    },
  },
});
const appRoute = contract.item;

type Answer = { status: number; body: unknown };
const checkedAnswer = (body: unknown): Promise<Answer> => {
  const router = withResponseCheck<typeof contract>({ item: async () => ({ status: 200, body }) as never });
  return (router.item as unknown as (args: { appRoute: typeof appRoute }) => Promise<Answer>)({ appRoute });
};

describe('response check (outside production)', () => {
  it('passes an answer the contract leaves as it is, and returns it untouched', async () => {
    const body = { tags: ['a'], id: 1, note: null };
    expect((await checkedAnswer(body)).body).toBe(body);
  });

  it('treats a key holding undefined as absent, as JSON does', () => {
    expect(firstDifference({ id: 1, extra: undefined }, { id: 1 })).toBeNull();
  });

  it('refuses a field the contract does not name (production would send it)', async () => {
    await expect(checkedAnswer({ id: 1, note: null, tags: [], passwordHash: 'x' })).rejects.toThrow(
      new ContractDriftError(appRoute, 200, '.passwordHash (not in the contract)'),
    );
  });

  it('refuses an answer that relies on a default of the contract', async () => {
    await expect(checkedAnswer({ id: 1, note: null })).rejects.toThrow(
      new ContractDriftError(appRoute, 200, '.tags (added by the contract)'),
    );
  });

  it('refuses an answer that fails the contract, as ts-rest did', async () => {
    await expect(checkedAnswer({ id: '1', note: null, tags: [] })).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('finds differences inside arrays and nested objects', () => {
    expect(firstDifference([{ a: [1, 2] }], [{ a: [1, 3] }])).toBe('[0].a[1]');
    expect(firstDifference({ a: [1] }, { a: [1, 2] })).toBe('.a (length)');
    expect(firstDifference(new Date(5), new Date(5))).toBeNull();
  });
});
