/**
 * Every area's owned-resource factories, registered by importing its test support module here.
 * Admins act on any member by design (their guard is what protects those routes).
 */
import '../../modules/auth/test-support.js';

export { ownedResources } from './registry.js';
