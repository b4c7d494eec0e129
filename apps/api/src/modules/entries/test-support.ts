/** Owned-resource factories of entries for the ownership matrix (registered when the routes land). */
export {};
