/** Test helpers of the membership area: the fake Google Play (Developer API, token endpoint, push keys). */
export * from './fake-store.js';
