/** Owned-resource factories of wallets for the ownership matrix (registered when the routes land). */
export {};
