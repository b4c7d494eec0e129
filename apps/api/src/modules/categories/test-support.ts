/** Owned-resource factories of categories for the ownership matrix (registered when the routes land). */
export {};
