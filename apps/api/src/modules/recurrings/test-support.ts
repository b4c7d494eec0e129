/** Owned-resource factories of recurring transactions for the ownership matrix (registered when the routes land). */
export {};
