import type { FastifyInstance } from 'fastify';
import type { TestMember } from '../app.js';

/**
 * A member-owned resource, as the ownership matrix needs it: how to make one for a member and how to
 * read it back for comparison. Every area registers its resources here; a served route that names a
 * resource (a path `:id`, or a body/query field such as `accountId`) without a registered factory fails
 * the matrix, so no area can skip it.
 */
export interface OwnedResource {
  name: string;
  /** Contract keys (or key prefixes) whose `:id` routes act on this resource, e.g. `ledger.entries`. */
  routes: string[];
  /** Body or query fields that reference this resource, e.g. `accountId`. */
  fields?: string[];
  /** Makes one for `owner` (a PREMIUM member, so premium routes are reachable) and returns its id. */
  make(app: FastifyInstance, owner: TestMember): Promise<number | string>;
  /** The stored state of the resource (and what hangs off it), compared before and after a foreign call. */
  snapshot(app: FastifyInstance, id: number | string): Promise<unknown>;
  /** Board content: other members may read it (200) but never change it. */
  readableByOthers?: boolean;
  /**
   * What another member's write gets when it is not 404: visible board content exists for everyone, so
   * editing or deleting someone else's is 403 FORBIDDEN (BD24).
   */
  refusedToOthersWith?: 'FORBIDDEN';
  /** Blocked board content is hidden from its own author too (BD23): the owner's own call is not checked. */
  hiddenFromOwner?: boolean;
}

export const ownedResources: OwnedResource[] = [];

/** Called by each area's test support module (imported by the matrix) to add its resources. */
export function registerOwnedResource(resource: OwnedResource): void {
  ownedResources.push(resource);
}
