export { AccountNumberCipher } from './account-numbers.js';
export { loanTermIssues } from './loan-terms.js';
export { default as walletsRoutes } from './routes.js';
export { toWallet, walletColumns } from './wallet.view.js';
export { WalletsService } from './wallets.service.js';
