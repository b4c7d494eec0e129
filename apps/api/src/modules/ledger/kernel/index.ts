/**
 * What several ledger modules share (decision F13): names resolved to ids, the ledger rows' constraint errors,
 * which wallets are cards, the category learned from a merchant, and local amounts of foreign money.
 */
export { INSTALMENT_WALLET_TYPE, memberWalletsOfTypes } from './card-wallets.js';
export { learnedCategory } from './category-learning.js';
export { withConstraintErrors } from './constraint-errors.js';
export { convertedAmount, impliedRate, LOCAL_CURRENCY, storableOriginalAmount, storedRate } from './local-amount.js';
export type { ResolvedTag } from './references.js';
export { assertInstalmentWallet, resolveReferences } from './references.js';
