CREATE INDEX "account_entry_member_confirmed_date_idx" ON "account_entry" USING btree ("member_id","entry_date","type","amount","category","memo") WHERE not "account_entry"."pending";
-- ---------------------------------------------------------------------------------------------------
-- Statistics and budgets read from the index alone (decision LP11, revising LP6): the trend, the month's and
-- year's sums, top merchants and the budgets' spent read the confirmed entries of one member's date range and
-- only the columns this index holds, so an index-only scan answers them without visiting the heap, where a
-- household's rows lie scattered among the whole service's. `memo` is a key column (drizzle has no INCLUDE):
-- memos are at most 200 characters (MEMO_MAX), far below a btree key's limit.
-- ---------------------------------------------------------------------------------------------------
