import type { AccountType, DbOrTx } from '@nestegg/db';
import { account } from '@nestegg/db';
import { and, eq, inArray, or } from 'drizzle-orm';

/** The wallet type able to carry instalments (a credit card; a check card debits at once; decision L8). */
export const INSTALMENT_WALLET_TYPE: AccountType = 'CARD';

/** What another module reads of a wallet to tell which card it is (the account number still encrypted). */
export interface CardWalletRow {
  id: number;
  type: AccountType;
  name: string;
  cardCompany: string | null;
  accountNumber: string | null;
}

/** The member's wallets of `types`, and the wallet `alsoId` (when given) whatever its type, if it is theirs. */
export function memberWalletsOfTypes(
  db: DbOrTx,
  memberId: number,
  types: readonly AccountType[],
  alsoId: number | undefined,
): Promise<CardWalletRow[]> {
  return db
    .select({
      id: account.id,
      type: account.type,
      name: account.name,
      cardCompany: account.cardCompany,
      accountNumber: account.accountNumber,
    })
    .from(account)
    .where(
      and(
        eq(account.memberId, memberId),
        or(inArray(account.type, [...types]), alsoId === undefined ? undefined : eq(account.id, alsoId)),
      ),
    );
}
