/**
 * Every area's owned-resource factories, registered by importing its test support module here.
 * Admins act on any member by design (their guard is what protects those routes).
 */
import '../../modules/auth/test-support.js';
import '../../modules/avatars/test-support.js';
import '../../modules/board-images/test-support.js';
import '../../modules/budgets/test-support.js';
import '../../modules/categories/test-support.js';
import '../../modules/comments/test-support.js';
import '../../modules/entries/test-support.js';
import '../../modules/investments/test-support.js';
import '../../modules/posts/test-support.js';
import '../../modules/quick-entries/test-support.js';
import '../../modules/recurrings/test-support.js';
import '../../modules/tags/test-support.js';
import '../../modules/votes/test-support.js';
import '../../modules/wallets/test-support.js';

export { ownedResources } from './registry.js';
