/** Owned-resource factories of tags for the ownership matrix (registered when the routes land). */
export {};
