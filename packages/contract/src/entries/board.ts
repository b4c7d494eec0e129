/** `@nestegg/contract/board`: the board area's routes and schemas, plus the client essentials. */
export * from '../board/index.js';
export * from '../essentials.js';
