import { randomBytes } from 'node:crypto';
import { account } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import { AccountNumberCipher, UnreadableAccountNumberError } from './account-numbers.js';
import { WalletsService } from './wallets.service.js';

const oldKey = { id: 'k2025', key: randomBytes(32) };
const newKey = { id: 'k2026', key: randomBytes(32) };
const keyList = (...keys: { id: string; key: Buffer }[]) =>
  keys.map((entry) => `${entry.id}:${entry.key.toString('base64')}`).join(',');

/** The api runs with both keys, encrypting under the new one. */
const test = apiTest({ ACCOUNT_NUMBER_KEYS: keyList(oldKey, newKey), ACCOUNT_NUMBER_KEY_ID: newKey.id });

const ENVELOPE = /^enc:v1:([A-Za-z0-9_-]+):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]+)$/;

const storedNumber = async (app: FastifyInstance, id: number) =>
  (await app.db.select({ value: account.accountNumber }).from(account).where(eq(account.id, id)))[0]!.value;

describe('account numbers at rest', () => {
  test('are stored as an AES-256-GCM envelope under the current key and read back in clear', async ({ app, free }) => {
    const created = bodyOf(
      await free.api.ledger.wallets.create({ body: { name: 'Salary', type: 'BANK', accountNumber: '110-123-456789' } }),
      201,
    );
    expect(created.accountNumber).toBe('110-123-456789');
    const stored = (await storedNumber(app, created.id))!;
    expect(stored).toMatch(ENVELOPE);
    expect(stored).not.toContain('456789');
    expect(ENVELOPE.exec(stored)![1]).toBe(newKey.id);
    const cipher = new AccountNumberCipher({ keys: [newKey], currentKeyId: null });
    expect(cipher.decrypt(stored)).toBe('110-123-456789');
    expect(bodyOf(await free.api.ledger.wallets.list(), 200).items[0]!.accountNumber).toBe('110-123-456789');

    // A fresh IV each time: the same number never gives the same stored value.
    const again = bodyOf(
      await free.api.ledger.wallets.update({ params: { id: created.id }, body: { accountNumber: '110-123-456789' } }),
      200,
    );
    expect(again.accountNumber).toBe('110-123-456789');
    expect(await storedNumber(app, created.id)).not.toBe(stored);
  });

  test('numbers under an older key and plain numbers stored before keys existed stay readable', async ({
    app,
    free,
  }) => {
    const underOldKey = new WalletsService({
      db: app.db,
      reader: app.db,
      clock: app.services.clock,
      accountNumbers: new AccountNumberCipher({ keys: [oldKey], currentKeyId: oldKey.id }),
      timeZone: 'Asia/Seoul',
    });
    const old = await underOldKey.create(
      { memberId: free.id, limited: true },
      { name: 'Old', type: 'BANK', accountNumber: '999-88' },
    );
    expect(ENVELOPE.exec((await storedNumber(app, old.id))!)![1]).toBe(oldKey.id);
    const plain = bodyOf(await free.api.ledger.wallets.create({ body: { name: 'Plain', type: 'CASH' } }), 201);
    await app.db.update(account).set({ accountNumber: '555-1234' }).where(eq(account.id, plain.id));

    const read = bodyOf(await free.api.ledger.wallets.list(), 200).items;
    expect(read.map((wallet) => [wallet.name, wallet.accountNumber])).toEqual([
      ['Old', '999-88'],
      ['Plain', '555-1234'],
    ]);
  });

  test('null or empty clears the stored number', async ({ app, free }) => {
    const created = bodyOf(
      await free.api.ledger.wallets.create({ body: { name: 'Card', type: 'CARD', accountNumber: '4321' } }),
      201,
    );
    bodyOf(await free.api.ledger.wallets.update({ params: { id: created.id }, body: { accountNumber: null } }), 200);
    expect(await storedNumber(app, created.id)).toBeNull();
  });
});

describe('the account-number cipher', () => {
  const cipher = new AccountNumberCipher({ keys: [oldKey, newKey], currentKeyId: newKey.id });

  it('refuses a tampered envelope or an unknown key instead of answering garbage', () => {
    const sealed = cipher.encrypt('1234-5678')!;
    const [prefix, sealedPart] = [
      sealed.slice(0, sealed.lastIndexOf(':') + 1),
      sealed.slice(sealed.lastIndexOf(':') + 1),
    ];
    const flipped = `${sealedPart[0] === 'A' ? 'B' : 'A'}${sealedPart.slice(1)}`;
    expect(() => cipher.decrypt(`${prefix}${flipped}`)).toThrow(UnreadableAccountNumberError);
    expect(() => cipher.decrypt(sealed.replace(newKey.id, 'gone'))).toThrow(UnreadableAccountNumberError);
  });

  it('passes numbers through unencrypted when no key is configured', () => {
    const plain = new AccountNumberCipher({ keys: [], currentKeyId: null });
    expect(plain.encrypt('1234')).toBe('1234');
    expect(plain.decrypt('1234')).toBe('1234');
  });
});
