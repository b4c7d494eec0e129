ALTER TABLE "ledger_change" ADD COLUMN "changed_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "member_change_counter" ADD COLUMN "pruned_seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "ledger_change_tombstone_changed_idx" ON "ledger_change" USING btree ("changed_at") WHERE "ledger_change"."deleted";