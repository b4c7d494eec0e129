import type { contract } from '@nestegg/contract';
import type { RouterImplementation } from '@ts-rest/fastify';

type AuthRouter = RouterImplementation<typeof contract.auth>;

/** A slice of the member-area router; each file of the module implements its own slice. */
export type AuthHandlers<K extends keyof AuthRouter> = Pick<AuthRouter, K>;
