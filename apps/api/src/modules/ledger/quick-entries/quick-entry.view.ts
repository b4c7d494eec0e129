import type { QuickEntry } from '@nestegg/contract';
import type { QuickEntry as QuickEntryRow } from '@nestegg/db';

/** A stored quick-entry template as the contract's `QuickEntry`. */
export function toQuickEntryResponse(row: QuickEntryRow): QuickEntry {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    amount: row.amount,
    category: row.category,
    accountId: row.accountId,
    memo: row.memo,
    sortOrder: row.sortOrder,
  };
}
