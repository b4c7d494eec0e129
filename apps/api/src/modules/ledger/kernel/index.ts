export { INSTALMENT_WALLET_TYPE, memberWalletsOfTypes } from './card-wallets.js';
export { withConstraintErrors } from './constraint-errors.js';
export type { ResolvedTag } from './references.js';
export { assertInstalmentWallet, resolveReferences } from './references.js';
