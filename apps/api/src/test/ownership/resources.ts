/**
 * Every area's owned-resource factories, registered by importing its test support module here.
 * Admins act on any member by design (their guard is what protects those routes).
 */
import '../../modules/members/auth/ownership.fixture.js';
import '../../modules/members/avatars/ownership.fixture.js';
import '../../modules/board/images/ownership.fixture.js';
import '../../modules/ledger/budgets/ownership.fixture.js';
import '../../modules/ledger/categories/ownership.fixture.js';
import '../../modules/board/comments/ownership.fixture.js';
import '../../modules/ledger/entries/ownership.fixture.js';
import '../../modules/ledger/imports/ownership.fixture.js';
import '../../modules/ledger/investments/ownership.fixture.js';
import '../../modules/board/posts/ownership.fixture.js';
import '../../modules/ledger/quick-entries/ownership.fixture.js';
import '../../modules/ledger/recurrings/ownership.fixture.js';
import '../../modules/ledger/tags/ownership.fixture.js';
import '../../modules/board/votes/ownership.fixture.js';
import '../../modules/ledger/wallets/ownership.fixture.js';

export { ownedResources } from './registry.js';
