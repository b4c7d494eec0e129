CREATE TYPE "public"."statement_import_status" AS ENUM('PREVIEW', 'COMMITTED', 'UNDONE');--> statement-breakpoint
CREATE TYPE "public"."statement_row_outcome" AS ENUM('NEW', 'DUPLICATE', 'MATCHED', 'CANCELLATION', 'INVALID', 'SKIPPED', 'EXCLUDED');--> statement-breakpoint
CREATE TABLE "statement_import" (
	"id" integer GENERATED ALWAYS AS IDENTITY (sequence name "statement_import_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"status" "statement_import_status" DEFAULT 'PREVIEW' NOT NULL,
	"file_name" text NOT NULL,
	"file_hash" text NOT NULL,
	"file_bytes" "bytea",
	"file_size" integer NOT NULL,
	"reading" jsonb NOT NULL,
	"settings" jsonb NOT NULL,
	"counts" jsonb NOT NULL,
	"row_count" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"committed_at" timestamp with time zone,
	"undone_at" timestamp with time zone,
	CONSTRAINT "statement_import_pk" PRIMARY KEY("member_id","id"),
	CONSTRAINT "statement_import_committed_dated" CHECK ("statement_import"."status" = 'PREVIEW' or "statement_import"."committed_at" is not null)
);
--> statement-breakpoint
CREATE TABLE "statement_import_profile" (
	"id" integer GENERATED ALWAYS AS IDENTITY (sequence name "statement_import_profile_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"name" text NOT NULL,
	"shape_key" text NOT NULL,
	"settings" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "statement_import_profile_pk" PRIMARY KEY("member_id","id"),
	CONSTRAINT "statement_import_profile_shape_uq" UNIQUE("member_id","shape_key")
);
--> statement-breakpoint
CREATE TABLE "statement_import_row" (
	"member_id" integer NOT NULL,
	"import_id" integer NOT NULL,
	"row_index" integer NOT NULL,
	"line" jsonb NOT NULL,
	"amount" bigint,
	"exchange_rate" text,
	"outcome" "statement_row_outcome" NOT NULL,
	"import_key" text,
	"entry_id" integer,
	"cancels_row" integer,
	"reason" text,
	"category" text,
	"candidates" integer[],
	"was_pending" boolean,
	CONSTRAINT "statement_import_row_pk" PRIMARY KEY("member_id","import_id","row_index")
);
--> statement-breakpoint
ALTER TABLE "account_entry" ADD COLUMN "import_key" text;--> statement-breakpoint
ALTER TABLE "statement_import" ADD CONSTRAINT "statement_import_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statement_import_profile" ADD CONSTRAINT "statement_import_profile_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statement_import_row" ADD CONSTRAINT "statement_import_row_import_fk" FOREIGN KEY ("member_id","import_id") REFERENCES "public"."statement_import"("member_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "statement_import_member_created_idx" ON "statement_import" USING btree ("member_id","created_at","id");--> statement-breakpoint
CREATE INDEX "statement_import_member_hash_idx" ON "statement_import" USING btree ("member_id","file_hash");--> statement-breakpoint
CREATE INDEX "statement_import_row_outcome_idx" ON "statement_import_row" USING btree ("member_id","import_id","outcome","row_index");--> statement-breakpoint
CREATE INDEX "statement_import_row_member_cancellation_key_idx" ON "statement_import_row" USING btree ("member_id","import_key") WHERE "statement_import_row"."outcome" = 'CANCELLATION';--> statement-breakpoint
ALTER TABLE "account_entry" ADD CONSTRAINT "account_entry_member_import_key_uq" UNIQUE("member_id","import_key");