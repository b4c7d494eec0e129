CREATE TABLE "fx_rate" (
	"base" char(3) NOT NULL,
	"quote" char(3) NOT NULL,
	"day" date NOT NULL,
	"rate" numeric(24, 12) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fx_rate_pk" PRIMARY KEY("base","quote","day")
);--> statement-breakpoint
CREATE TABLE "wallet_value_history" (
	"member_id" integer NOT NULL,
	"account_id" integer NOT NULL,
	"day" date NOT NULL,
	"value" bigint NOT NULL,
	CONSTRAINT "wallet_value_history_pk" PRIMARY KEY("member_id","account_id","day")
);--> statement-breakpoint
CREATE TABLE "idempotency_key" (
	"member_id" integer NOT NULL,
	"route" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"status" smallint,
	"response" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "idempotency_key_pk" PRIMARY KEY("member_id","route","key")
);--> statement-breakpoint
CREATE TABLE "ledger_change" (
	"member_id" integer NOT NULL,
	"entity" text NOT NULL,
	"entity_id" integer NOT NULL,
	"seq" bigint NOT NULL,
	"deleted" boolean NOT NULL,
	CONSTRAINT "ledger_change_pk" PRIMARY KEY("member_id","entity","entity_id")
);--> statement-breakpoint
CREATE TABLE "member_change_counter" (
	"member_id" integer PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL
);--> statement-breakpoint
ALTER TABLE "category" DROP CONSTRAINT "category_member_type_parent_name_uq";--> statement-breakpoint
ALTER TABLE "default_category" DROP CONSTRAINT "default_category_type_parent_name_uq";--> statement-breakpoint
ALTER TABLE "account_entry" DROP CONSTRAINT "account_entry_installment_months_range";--> statement-breakpoint
ALTER TABLE "account_entry" DROP CONSTRAINT "account_entry_account_id_account_id_fk";--> statement-breakpoint
ALTER TABLE "entry_tag" DROP CONSTRAINT "entry_tag_entry_id_account_entry_id_fk";--> statement-breakpoint
ALTER TABLE "entry_tag" DROP CONSTRAINT "entry_tag_tag_id_tag_id_fk";--> statement-breakpoint
ALTER TABLE "quick_entry" DROP CONSTRAINT "quick_entry_account_id_account_id_fk";--> statement-breakpoint
ALTER TABLE "recurring" DROP CONSTRAINT "recurring_account_id_account_id_fk";--> statement-breakpoint
DROP INDEX "account_entry_member_category_idx";--> statement-breakpoint
DROP INDEX "account_entry_account_idx";--> statement-breakpoint
DROP INDEX "entry_tag_tag_idx";--> statement-breakpoint
DROP INDEX "recurring_account_idx";--> statement-breakpoint
ALTER TABLE "account_entry" ALTER COLUMN "exchange_rate" SET DATA TYPE numeric(20, 10);--> statement-breakpoint
ALTER TABLE "account" ADD COLUMN "opening_balance" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "account_entry" ADD COLUMN "recurring_id" integer;--> statement-breakpoint
ALTER TABLE "account_entry" ADD COLUMN "occurrence_date" date;--> statement-breakpoint
ALTER TABLE "entry_tag" ADD COLUMN "member_id" integer;--> statement-breakpoint
UPDATE "entry_tag" SET "member_id" = "account_entry"."member_id" FROM "account_entry" WHERE "account_entry"."id" = "entry_tag"."entry_id";--> statement-breakpoint
ALTER TABLE "entry_tag" ALTER COLUMN "member_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "account" ADD CONSTRAINT "account_member_id_uq" UNIQUE("member_id","id");--> statement-breakpoint
ALTER TABLE "account_entry" ADD CONSTRAINT "account_entry_member_id_uq" UNIQUE("member_id","id");--> statement-breakpoint
ALTER TABLE "account_entry" ADD CONSTRAINT "account_entry_member_occurrence_uq" UNIQUE("member_id","recurring_id","occurrence_date");--> statement-breakpoint
ALTER TABLE "category" ADD CONSTRAINT "category_member_type_name_uq" UNIQUE("member_id","type","name");--> statement-breakpoint
ALTER TABLE "default_category" ADD CONSTRAINT "default_category_type_name_uq" UNIQUE("type","name");--> statement-breakpoint
ALTER TABLE "recurring" ADD CONSTRAINT "recurring_member_id_uq" UNIQUE("member_id","id");--> statement-breakpoint
ALTER TABLE "tag" ADD CONSTRAINT "tag_member_id_uq" UNIQUE("member_id","id");--> statement-breakpoint
ALTER TABLE "wallet_value_history" ADD CONSTRAINT "wallet_value_history_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_value_history" ADD CONSTRAINT "wallet_value_history_account_fk" FOREIGN KEY ("member_id","account_id") REFERENCES "public"."account"("member_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_key" ADD CONSTRAINT "idempotency_key_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_change" ADD CONSTRAINT "ledger_change_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_change_counter" ADD CONSTRAINT "member_change_counter_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_key_created_idx" ON "idempotency_key" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "ledger_change_member_seq_idx" ON "ledger_change" USING btree ("member_id","seq");--> statement-breakpoint
ALTER TABLE "entry_tag" ADD CONSTRAINT "entry_tag_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entry_tag" ADD CONSTRAINT "entry_tag_entry_fk" FOREIGN KEY ("member_id","entry_id") REFERENCES "public"."account_entry"("member_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entry_tag" ADD CONSTRAINT "entry_tag_tag_fk" FOREIGN KEY ("member_id","tag_id") REFERENCES "public"."tag"("member_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_entry_member_category_date_idx" ON "account_entry" USING btree ("member_id","category","entry_date","id");--> statement-breakpoint
CREATE INDEX "account_entry_member_account_date_idx" ON "account_entry" USING btree ("member_id","account_id","entry_date","id");--> statement-breakpoint
CREATE INDEX "entry_tag_member_tag_idx" ON "entry_tag" USING btree ("member_id","tag_id","entry_id");--> statement-breakpoint
CREATE INDEX "recurring_member_account_idx" ON "recurring" USING btree ("member_id","account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "point_history_member_once_uq" ON "point_history" USING btree ("member_id","reason") WHERE "point_history"."reason" like 'MONTH_COMPLETE_%';--> statement-breakpoint
ALTER TABLE "entry_tag" DROP CONSTRAINT "entry_tag_pk";--> statement-breakpoint
ALTER TABLE "entry_tag" ADD CONSTRAINT "entry_tag_pk" PRIMARY KEY("member_id","entry_id","tag_id");--> statement-breakpoint
ALTER TABLE "account_entry" ADD CONSTRAINT "account_entry_amount_positive" CHECK ("account_entry"."amount" > 0);--> statement-breakpoint
ALTER TABLE "account_entry" ADD CONSTRAINT "account_entry_foreign_all_or_none" CHECK (("account_entry"."currency" is null) = ("account_entry"."original_amount" is null) and ("account_entry"."currency" is null) = ("account_entry"."exchange_rate" is null));--> statement-breakpoint
ALTER TABLE "account_entry" ADD CONSTRAINT "account_entry_occurrence_dated" CHECK ("account_entry"."recurring_id" is null or "account_entry"."occurrence_date" is not null);--> statement-breakpoint
ALTER TABLE "account_entry" ADD CONSTRAINT "account_entry_installment_months_range" CHECK ("account_entry"."installment_months" is null or ("account_entry"."installment_months" between 2 and 24 and "account_entry"."type" = 'EXPENSE'));
