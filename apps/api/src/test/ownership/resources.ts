/**
 * Every area's owned-resource factories, registered by importing its test support module here.
 * Admins act on any member by design (their guard is what protects those routes).
 */
import '../../modules/auth/ownership.fixture.js';
import '../../modules/avatars/ownership.fixture.js';
import '../../modules/board-images/ownership.fixture.js';
import '../../modules/budgets/ownership.fixture.js';
import '../../modules/categories/ownership.fixture.js';
import '../../modules/comments/ownership.fixture.js';
import '../../modules/entries/ownership.fixture.js';
import '../../modules/investments/ownership.fixture.js';
import '../../modules/posts/ownership.fixture.js';
import '../../modules/quick-entries/ownership.fixture.js';
import '../../modules/recurrings/ownership.fixture.js';
import '../../modules/tags/ownership.fixture.js';
import '../../modules/votes/ownership.fixture.js';
import '../../modules/wallets/ownership.fixture.js';

export { ownedResources } from './registry.js';
