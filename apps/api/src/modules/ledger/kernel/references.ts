import { type AccountType, account, category, type DbOrTx, tag } from '@nestegg/db';
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { AppError, BadRequestError, NotFoundError, ValidationFailedError } from '../../../lib/errors.js';
import { shareMemberCategories } from '../../../lib/locks.js';
import { INSTALMENT_WALLET_TYPE } from './card-wallets.js';

type LedgerType = 'INCOME' | 'EXPENSE';

/** What a ledger row names by id or by name; absent parts are not looked up. */
export interface References {
  accountId?: number | null;
  category?: { type: LedgerType; name: string | null };
  tagNames?: readonly string[];
}

export interface ResolvedTag {
  id: number;
  name: string;
  sortOrder: number;
}

export interface ResolvedReferences {
  /** The wallet's type; undefined when no wallet was named, null when the member has no such wallet. */
  walletType: AccountType | null | undefined;
  tags: ResolvedTag[];
}

function lookups(memberId: number, refs: References): Record<string, SQL> {
  const columns: Record<string, SQL> = {};
  if (refs.accountId != null) {
    columns.wallet_type = sql`(select ${account.type} from ${account}
      where ${account.memberId} = ${memberId} and ${account.id} = ${refs.accountId})`;
  }
  if (refs.category?.name != null) {
    columns.category_known = sql`exists (select 1 from ${category}
      where ${category.memberId} = ${memberId} and ${category.type} = ${refs.category.type}
        and ${category.name} = ${refs.category.name})`;
  }
  if (refs.tagNames && refs.tagNames.length > 0) {
    columns.tags = sql`(select coalesce(json_agg(json_build_object('id', ${tag.id}, 'name', ${tag.name},
        'sortOrder', ${tag.sortOrder})), '[]'::json) from ${tag}
      where ${and(eq(tag.memberId, memberId), inArray(tag.name, [...refs.tagNames]))})`;
  }
  return columns;
}

/**
 * Resolves, in one statement, the wallet, category and tags a ledger row names, and refuses unknown ones:
 * a wallet that is not the member's → 404, a category name the member has no category of that type for →
 * 400 `UNKNOWN_CATEGORY`, a tag name the member has no tag for → 400 `UNKNOWN_TAG`.
 */
export async function resolveReferences(tx: DbOrTx, memberId: number, refs: References): Promise<ResolvedReferences> {
  const columns = lookups(memberId, refs);
  const names = Object.keys(columns);
  if (names.length === 0) return { walletType: undefined, tags: [] };
  if (refs.category?.name != null) await shareMemberCategories(tx, memberId);
  const selected = sql.join(
    names.map((name) => sql`${columns[name]} as ${sql.identifier(name)}`),
    sql`, `,
  );
  const [row] = (await tx.execute(sql`select ${selected}`)) as unknown as Record<string, unknown>[];
  const found = row ?? {};
  if ('wallet_type' in found && found.wallet_type === null) throw new NotFoundError('wallet');
  if ('category_known' in found && found.category_known !== true) {
    throw new BadRequestError('UNKNOWN_CATEGORY', `You have no ${refs.category?.type} category of this name.`);
  }
  const tags = (found.tags as ResolvedTag[] | undefined) ?? [];
  assertAllTagsKnown(refs.tagNames ?? [], tags);
  return { walletType: found.wallet_type as AccountType | undefined, tags };
}

function assertAllTagsKnown(names: readonly string[], tags: readonly ResolvedTag[]): void {
  const errors = names.flatMap((name, index) =>
    tags.some((t) => t.name === name) ? [] : [{ path: `body.tags.${index}`, message: 'you have no tag of this name' }],
  );
  if (errors.length > 0) throw new AppError('UNKNOWN_TAG', 'A tag is not one of yours.', { errors });
}

/** Instalments need an expense on a CARD wallet (the type is checked by the contract and the CHECK). */
export function assertInstalmentWallet(installmentMonths: number | null, walletType: AccountType | null): void {
  if (installmentMonths === null || walletType === INSTALMENT_WALLET_TYPE) return;
  throw new ValidationFailedError([
    { path: 'body.installmentMonths', message: `only for an expense on a ${INSTALMENT_WALLET_TYPE} wallet` },
  ]);
}
