import { describe, expect, it } from 'vitest';
import { doc, operations } from './document.js';

const tagGroups = (doc as { 'x-tagGroups'?: Array<{ name: string; tags: string[] }> })['x-tagGroups'] ?? [];
const operationsTagged = (tag: string) => operations.filter(({ op }) => op.tags?.[0] === tag);

describe('tags by domain (C38)', () => {
  it('gives every operation one tag, described in one line', () => {
    const described = new Map((doc.tags ?? []).map((tag) => [tag.name, tag.description ?? '']));
    for (const { method, path, op } of operations) {
      expect(op.tags, `${method} ${path}`).toHaveLength(1);
      expect(described.get(op.tags![0]!), `${method} ${path}`).toMatch(/^[^\n]{10,120}$/);
    }
  });

  it('uses every tag, and x-tagGroups lists each of them once', () => {
    const names = (doc.tags ?? []).map((tag) => tag.name);
    for (const name of names) expect(operationsTagged(name).length, name).toBeGreaterThan(0);
    expect(tagGroups.flatMap((group) => group.tags)).toEqual(names);
    expect(tagGroups.map((group) => group.name)).toEqual([
      'Account',
      'Ledger',
      'Board',
      'Membership',
      'Administration',
    ]);
  });

  it('splits the ledger by domain, none a long flat list', () => {
    const ledger = tagGroups.find((group) => group.name === 'Ledger')!.tags;
    expect(ledger).toEqual(
      expect.arrayContaining([
        'Entries',
        'Wallets',
        'Categories',
        'Budgets',
        'Statistics',
        'Card notifications',
        'Investments',
        'Backup',
      ]),
    );
    const ledgerOperations = operations.filter(({ op }) => op.operationId?.startsWith('ledger'));
    expect(ledgerOperations.every(({ op }) => ledger.includes(op.tags![0]!))).toBe(true);
    for (const name of (doc.tags ?? []).map((tag) => tag.name)) {
      expect(operationsTagged(name).length, name).toBeLessThanOrEqual(14);
    }
    const tagOf = (id: string) => operations.find(({ op }) => op.operationId === id)?.op.tags?.[0];
    expect(tagOf('ledgerEntriesNotification')).toBe('Card notifications');
    expect(tagOf('ledgerEntriesList')).toBe('Entries');
    expect(tagOf('ledgerStatsMonthly')).toBe('Statistics');
    expect(tagOf('boardDeleteBoardTag')).toBe('Board tags');
  });

  it('carries the service’s own title', () => {
    expect(doc.info.title).toBe('Nestegg API');
  });
});
