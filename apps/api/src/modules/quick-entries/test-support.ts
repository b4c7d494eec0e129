/** Owned-resource factories of quick entries for the ownership matrix (registered when the routes land). */
export {};
