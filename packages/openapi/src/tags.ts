/**
 * Tags by domain (decision C38): each operation gets the first tag whose list names its operationId or a prefix
 * of it (`ledgerEntries*`); `x-tagGroups` gathers the tags by area for viewers that show groups (Redoc, Scalar),
 * and the top-level `tags` order is the reading order for the others (Swagger UI).
 */
type TagDefinition = { name: string; description: string; operations: string[] };
type TagGroup = { name: string; tags: TagDefinition[] };

const tagGroups: TagGroup[] = [
  {
    name: 'Account',
    tags: [
      {
        name: 'Sign-up and login',
        description: 'Create an account, log in with a password or a provider, log out',
        operations: [
          'authSignup',
          'authSignupEnabled',
          'authLogin',
          'authLogout',
          'authIdpOneLogin',
          'authIdpTwoLogin',
          'authIdpOneClientId',
        ],
      },
      {
        name: 'Passwords and re-authentication',
        description: 'Change or set a password, and confirm identity before sensitive actions',
        operations: ['authChangePassword', 'authSetPassword', 'authVerifyPassword', 'authReauthenticate'],
      },
      {
        name: 'Profile and points',
        description: "The member's profile, picture, avatar images, points and withdrawal",
        operations: [
          'authGetProfile',
          'authUpdateProfile',
          'authUpdateProfileImage',
          'authAvatar',
          'authPoints',
          'authPointHistory',
          'authDeleteMe',
        ],
      },
      {
        name: 'Sessions',
        description: "The member's signed-in devices: list them, end one or all others",
        operations: ['authListSessions', 'authEndOtherSessions', 'authEndSession'],
      },
    ],
  },
  {
    name: 'Ledger',
    tags: [
      {
        name: 'Card notifications',
        description: 'Read a card-approval text message into an entry, and confirm pending ones',
        operations: [
          'ledgerEntriesParse',
          'ledgerEntriesNotification',
          'ledgerEntriesConfirm',
          'ledgerEntriesPendingCount',
        ],
      },
      {
        name: 'Entries',
        description: 'Income and expense entries: filtered and paged lists with totals, create, edit, delete',
        operations: ['ledgerEntries*'],
      },
      {
        name: 'Quick entries',
        description: 'Saved templates for entries made often (a coffee, a bus fare)',
        operations: ['ledgerQuickEntries*'],
      },
      {
        name: 'Wallets',
        description: 'Cash, bank accounts, cards, loans and investments accounts, their balances and net worth',
        operations: ['ledgerWallets*'],
      },
      {
        name: 'Categories',
        description: 'Two-level income and expense categories, ordered; the defaults can be imported',
        operations: ['ledgerCategories*'],
      },
      { name: 'Tags', description: 'Free labels on entries (premium)', operations: ['ledgerTags*'] },
      {
        name: 'Recurring transactions',
        description: 'Entries posted on a schedule (rent on the 25th, a weekly allowance)',
        operations: ['ledgerRecurrings*'],
      },
      {
        name: 'Budgets',
        description: 'Monthly budgets per category, one-time budgets and the expected income (premium)',
        operations: ['ledgerBudgets*'],
      },
      {
        name: 'Statistics',
        description: 'Monthly and yearly totals by category, the monthly trend and top merchants (premium)',
        operations: ['ledgerStats*'],
      },
      {
        name: 'Investments',
        description: 'Holdings, trades, the portfolio at current quotes and quote lookups (premium)',
        operations: ['ledgerInvestments*'],
      },
      {
        name: 'Receipts',
        description: 'Read the text of a receipt photo (premium, with a daily quota)',
        operations: ['ledgerReceipts*'],
      },
      {
        name: 'Statement import',
        description: 'Card and bank statements previewed row by row, adjusted, committed once, undone for a week',
        operations: ['ledgerImports*'],
      },
      {
        name: 'Backup',
        description: 'Export the whole ledger as one JSON document, and restore it (premium)',
        operations: ['ledgerBackup*'],
      },
      { name: 'Exchange rates', description: 'The rate between two currencies on a day', operations: ['ledgerFx*'] },
      {
        name: 'Sync',
        description: "What changed in the member's ledger since a cursor, for offline-first apps",
        operations: ['ledgerChanges*'],
      },
    ],
  },
  {
    name: 'Board',
    tags: [
      {
        name: 'Posts',
        description: 'Community posts: list by board and tag, read, write, edit, delete, notices',
        operations: [
          'boardListPosts',
          'boardCreatePost',
          'boardGetPost',
          'boardUpdatePost',
          'boardDeletePost',
          'boardSetNotice',
          'boardClearNotice',
          'boardMyPosts',
        ],
      },
      {
        name: 'Comments',
        description: 'Comments on posts',
        operations: [
          'boardListComments',
          'boardCreateComment',
          'boardUpdateComment',
          'boardDeleteComment',
          'boardMyComments',
        ],
      },
      {
        name: 'Votes',
        description: 'Up and down votes on posts and comments, and who recommended a post',
        operations: ['boardVotePost', 'boardVoteComment', 'boardListRecommenders'],
      },
      {
        name: 'Reports and moderation',
        description: 'Report a post or comment; moderators review reports, their history and spam keywords',
        operations: [
          'boardReportPost',
          'boardReportComment',
          'boardListReports',
          'boardDismissReports',
          'boardReportHistory',
          'boardListSpamKeywords',
          'boardAddSpamKeyword',
          'boardDeleteSpamKeyword',
        ],
      },
      {
        name: 'Images',
        description: 'Upload an image for a post, and serve it',
        operations: ['boardUploadImage', 'boardGetImage'],
      },
      {
        name: 'Board tags',
        description: 'Tag groups and the tags writers choose from, per board (administrators edit them)',
        operations: [
          'boardTagGroups',
          'boardCreateTagGroup',
          'boardReorderTagGroups',
          'boardUpdateTagGroup',
          'boardDeleteTagGroup',
          'board*BoardTag*',
        ],
      },
    ],
  },
  {
    name: 'Membership',
    tags: [
      {
        name: 'Billing',
        description: 'Plans, store purchases, the subscription and store notifications',
        operations: ['billing*'],
      },
    ],
  },
  {
    name: 'Administration',
    tags: [
      {
        name: 'Member administration',
        description: 'List members; change plan, role and status; delete; open or close sign-up',
        operations: ['adminListMembers', 'adminSetMember*', 'adminDeleteMember', 'admin*SignupSetting'],
      },
      {
        name: 'Default categories',
        description: 'The categories new members start with',
        operations: ['admin*DefaultCategor*'],
      },
    ],
  },
];

const allTags = tagGroups.flatMap((group) => group.tags);

/** `*` stands for any run of characters. */
const matches = (pattern: string, operationId: string): boolean =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(operationId);

/** The domain tag of an operation; an operation no tag names is a mistake in this list. */
export const tagOf = (operationId: string): string => {
  const tag = allTags.find(({ operations }) => operations.some((pattern) => matches(pattern, operationId)));
  if (!tag) throw new Error(`no tag names the operation ${operationId}: add it in packages/openapi/src/tags.ts`);
  return tag.name;
};

/** The top-level `tags` (name and one line each) in reading order. */
export const documentTags = allTags.map(({ name, description }) => ({ name, description }));

/** `x-tagGroups`: the areas, each with its tags. */
export const documentTagGroups = tagGroups.map(({ name, tags }) => ({ name, tags: tags.map((tag) => tag.name) }));
