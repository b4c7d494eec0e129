/**
 * Every area's owned-resource factories, registered by importing its test support module here
 * (e.g. `import '../../modules/entries/test-support.js';`). The member and admin areas own no resource
 * addressed by id: a member acts on their own account, and admins on any member by design.
 */
export { ownedResources } from './registry.js';
