/** Spam keywords: the admin-managed list the spam filter matches new posts and comments against. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  IdParamSchema,
  IdSchema,
  InstantSchema,
  listOf,
  meta,
  problems,
  routerOptions,
  withCommonProblems,
} from '../common.js';
import { nonBlankText, text } from '../text.js';
import { SPAM_BLOCK_REASON } from './shared.js';

const c = initContract();

/** Longest spam keyword. */
export const SPAM_KEYWORD_MAX = 50;

const MATCHING =
  'A post (title and body) or comment matches when its text contains a keyword, both compared as skeletons: ' +
  'Unicode NFKC, look-alike letters of other scripts as their Latin prototypes (UTS #39 confusables; Hangul ' +
  'unchanged), accents dropped, lower case; punctuation and invisible characters between letters dropped, and ' +
  'spaces too between single letters (`c a s i n o`), other spaces kept as one (a keyword written with spaces ' +
  `also matches without them). A keyword needs a letter or a digit. Matching content is stored blocked (\`blockReason\` \`${SPAM_BLOCK_REASON}\`), ` +
  "earns no points and appears in the admin's report list; admins' own writing is not filtered.";

export const SpamKeywordSchema = z.object({
  id: IdSchema,
  keyword: text().describe('As the admin entered it (trimmed)'),
  createdAt: InstantSchema,
});
export type SpamKeyword = z.infer<typeof SpamKeywordSchema>;
export const SpamKeywordListSchema = listOf(SpamKeywordSchema);
export type SpamKeywordList = z.infer<typeof SpamKeywordListSchema>;

export const CreateSpamKeywordRequestSchema = z.object({
  keyword: nonBlankText().max(SPAM_KEYWORD_MAX),
});
export type CreateSpamKeywordRequest = z.infer<typeof CreateSpamKeywordRequestSchema>;

/** Spam keyword routes (admin). */
export const spamContract = withCommonProblems(
  c.router(
    {
      listSpamKeywords: {
        method: 'GET',
        path: '/api/board/spam-keywords',
        summary: 'The spam keywords, alphabetically',
        description: MATCHING,
        responses: { 200: SpamKeywordListSchema },
        metadata: meta('admin'),
      },
      addSpamKeyword: {
        method: 'POST',
        path: '/api/board/spam-keywords',
        summary: 'Add a spam keyword (applies to content written from now on)',
        description: `${MATCHING} A keyword whose skeleton is an existing one's → 409 \`DUPLICATE_SPAM_KEYWORD\`.`,
        body: CreateSpamKeywordRequestSchema,
        responses: { 201: SpamKeywordSchema, ...problems('DUPLICATE_SPAM_KEYWORD') },
        metadata: meta('admin'),
      },
      deleteSpamKeyword: {
        method: 'DELETE',
        path: '/api/board/spam-keywords/:id',
        summary: 'Remove a spam keyword (content it blocked stays blocked until dismissed)',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody() },
        metadata: meta('admin'),
      },
    },
    routerOptions,
  ),
);
