/** Test helpers of the membership area: the fake Google Play and the fake App Store (signed data and server API). */

export * from './fake-app-store.js';
export * from './fake-store.js';
