CREATE TYPE "public"."ledger_type" AS ENUM('INCOME', 'EXPENSE');--> statement-breakpoint
CREATE TYPE "public"."auth_provider" AS ENUM('LOCAL', 'IDPONE', 'IDPTWO');--> statement-breakpoint
CREATE TYPE "public"."member_plan" AS ENUM('FREE', 'PREMIUM');--> statement-breakpoint
CREATE TYPE "public"."member_role" AS ENUM('USER', 'ADMIN');--> statement-breakpoint
CREATE TYPE "public"."member_status" AS ENUM('ACTIVE', 'SUSPENDED');--> statement-breakpoint
CREATE TYPE "public"."account_type" AS ENUM('CASH', 'BANK', 'CARD', 'CHECK_CARD', 'SAVINGS', 'INVESTMENT', 'PENSION', 'LOAN', 'MINUS', 'OTHER');--> statement-breakpoint
CREATE TYPE "public"."loan_method" AS ENUM('EQUAL_PAYMENT', 'EQUAL_PRINCIPAL', 'BULLET');--> statement-breakpoint
CREATE TYPE "public"."recurring_frequency" AS ENUM('MONTHLY', 'WEEKLY', 'YEARLY');--> statement-breakpoint
CREATE TYPE "public"."trade_side" AS ENUM('BUY', 'SELL');--> statement-breakpoint
CREATE TYPE "public"."board_category" AS ENUM('community', 'saving', 'tips');--> statement-breakpoint
CREATE TYPE "public"."report_target_type" AS ENUM('POST', 'COMMENT');--> statement-breakpoint
CREATE TYPE "public"."vote_direction" AS ENUM('UP', 'DOWN');--> statement-breakpoint
CREATE TABLE "app_setting" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "auth_session" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "auth_session_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"token_hash" text NOT NULL,
	"member_id" integer NOT NULL,
	"display_name" text NOT NULL,
	"plan" "member_plan" NOT NULL,
	"role" "member_role" NOT NULL,
	"remember_me" boolean DEFAULT false NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "auth_session_token_hash_uq" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "member" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "member_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"email" text,
	"email_verified" boolean DEFAULT false NOT NULL,
	"password_hash" text,
	"display_name" text NOT NULL,
	"role" "member_role" DEFAULT 'USER' NOT NULL,
	"status" "member_status" DEFAULT 'ACTIVE' NOT NULL,
	"provider" "auth_provider" DEFAULT 'LOCAL' NOT NULL,
	"idpone_id" text,
	"idptwo_id" text,
	"idpone_picture" text,
	"profile_image" text,
	"plan" "member_plan" DEFAULT 'FREE' NOT NULL,
	"plan_expires_at" timestamp with time zone,
	"plan_product" text,
	"plan_auto_renew" boolean DEFAULT false NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "member_idpone_id_uq" UNIQUE("idpone_id"),
	CONSTRAINT "member_idptwo_id_uq" UNIQUE("idptwo_id"),
	CONSTRAINT "member_points_non_negative" CHECK ("member"."points" >= 0)
);
--> statement-breakpoint
CREATE TABLE "point_history" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "point_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"amount" integer NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "account" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "account_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"name" text NOT NULL,
	"type" "account_type" NOT NULL,
	"account_number" text,
	"card_company" text,
	"balance" bigint DEFAULT 0 NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"loan_amount" bigint,
	"loan_rate" numeric(7, 4),
	"loan_method" "loan_method",
	"loan_months" integer,
	"loan_start" date,
	"manual_valuation" boolean DEFAULT false NOT NULL,
	"current_value" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_member_name_uq" UNIQUE("member_id","name"),
	CONSTRAINT "account_loan_months_positive" CHECK ("account"."loan_months" is null or "account"."loan_months" > 0)
);
--> statement-breakpoint
CREATE TABLE "account_entry" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "account_entry_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"account_id" integer,
	"type" "ledger_type" NOT NULL,
	"amount" bigint NOT NULL,
	"entry_date" date NOT NULL,
	"memo" text,
	"category" text,
	"currency" char(3),
	"original_amount" numeric(18, 4),
	"exchange_rate" numeric(18, 6),
	"installment_months" integer,
	"pending" boolean DEFAULT false NOT NULL,
	"notif_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_entry_member_notif_key_uq" UNIQUE("member_id","notif_key"),
	CONSTRAINT "account_entry_installment_months_range" CHECK ("account_entry"."installment_months" is null or "account_entry"."installment_months" between 2 and 24)
);
--> statement-breakpoint
CREATE TABLE "budget" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "budget_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"category" text NOT NULL,
	"year" smallint NOT NULL,
	"month" smallint NOT NULL,
	"amount" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "budget_member_category_year_month_uq" UNIQUE("member_id","category","year","month"),
	CONSTRAINT "budget_month_range" CHECK ("budget"."month" between 1 and 12)
);
--> statement-breakpoint
CREATE TABLE "budget_income" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "budget_income_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"year" smallint NOT NULL,
	"month" smallint NOT NULL,
	"amount" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "budget_income_member_year_month_uq" UNIQUE("member_id","year","month"),
	CONSTRAINT "budget_income_month_range" CHECK ("budget_income"."month" between 1 and 12)
);
--> statement-breakpoint
CREATE TABLE "budget_onetime" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "budget_onetime_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"name" text NOT NULL,
	"amount" bigint NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date NOT NULL,
	"category" text,
	"memo" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "budget_onetime_date_order" CHECK ("budget_onetime"."end_date" >= "budget_onetime"."start_date")
);
--> statement-breakpoint
CREATE TABLE "category" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "category_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"name" text NOT NULL,
	"type" "ledger_type" NOT NULL,
	"parent_id" integer,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "category_id_member_uq" UNIQUE("id","member_id"),
	CONSTRAINT "category_member_type_parent_name_uq" UNIQUE NULLS NOT DISTINCT("member_id","type","parent_id","name"),
	CONSTRAINT "category_not_own_parent" CHECK ("category"."parent_id" is null or "category"."parent_id" <> "category"."id")
);
--> statement-breakpoint
CREATE TABLE "default_category" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "default_category_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"type" "ledger_type" NOT NULL,
	"parent_id" integer,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "default_category_type_parent_name_uq" UNIQUE NULLS NOT DISTINCT("type","parent_id","name")
);
--> statement-breakpoint
CREATE TABLE "entry_tag" (
	"entry_id" integer NOT NULL,
	"tag_id" integer NOT NULL,
	CONSTRAINT "entry_tag_pk" PRIMARY KEY("entry_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "quick_entry" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "quick_entry_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"name" text NOT NULL,
	"type" "ledger_type" DEFAULT 'EXPENSE' NOT NULL,
	"amount" bigint,
	"category" text,
	"account_id" integer,
	"memo" text,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recurring" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "recurring_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"name" text NOT NULL,
	"type" "ledger_type" NOT NULL,
	"amount" bigint NOT NULL,
	"category" text,
	"account_id" integer,
	"memo" text,
	"frequency" "recurring_frequency" DEFAULT 'MONTHLY' NOT NULL,
	"day_of_month" smallint,
	"day_of_week" smallint,
	"month_of_year" smallint,
	"start_date" date NOT NULL,
	"end_date" date,
	"active" boolean DEFAULT true NOT NULL,
	"last_run_on" date,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "recurring_day_of_month_range" CHECK ("recurring"."day_of_month" is null or "recurring"."day_of_month" between 1 and 31),
	CONSTRAINT "recurring_day_of_week_range" CHECK ("recurring"."day_of_week" is null or "recurring"."day_of_week" between 1 and 7),
	CONSTRAINT "recurring_month_of_year_range" CHECK ("recurring"."month_of_year" is null or "recurring"."month_of_year" between 1 and 12),
	CONSTRAINT "recurring_date_order" CHECK ("recurring"."end_date" is null or "recurring"."end_date" >= "recurring"."start_date")
);
--> statement-breakpoint
CREATE TABLE "tag" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "tag_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"name" text NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tag_member_name_uq" UNIQUE("member_id","name")
);
--> statement-breakpoint
CREATE TABLE "investment_holding" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "investment_holding_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"name" text NOT NULL,
	"stock_code" text,
	"currency" char(3),
	"quantity" numeric(18, 6) DEFAULT '0' NOT NULL,
	"average_price" bigint DEFAULT 0 NOT NULL,
	"realized_profit" bigint DEFAULT 0 NOT NULL,
	"current_price" bigint,
	"price_updated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "investment_holding_quantity_non_negative" CHECK ("investment_holding"."quantity" >= 0)
);
--> statement-breakpoint
CREATE TABLE "investment_trade" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "investment_trade_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"holding_id" integer NOT NULL,
	"side" "trade_side" NOT NULL,
	"quantity" numeric(18, 6) NOT NULL,
	"price" bigint NOT NULL,
	"fee" bigint DEFAULT 0 NOT NULL,
	"traded_at" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "investment_trade_quantity_positive" CHECK ("investment_trade"."quantity" > 0),
	CONSTRAINT "investment_trade_price_non_negative" CHECK ("investment_trade"."price" >= 0),
	CONSTRAINT "investment_trade_fee_non_negative" CHECK ("investment_trade"."fee" >= 0)
);
--> statement-breakpoint
CREATE TABLE "board_image" (
	"id" text PRIMARY KEY NOT NULL,
	"member_id" integer NOT NULL,
	"content_type" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"byte_size" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "board_tag" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "board_tag_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"tag_category_id" integer NOT NULL,
	"name" text NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "board_tag_category_name_uq" UNIQUE("tag_category_id","name")
);
--> statement-breakpoint
CREATE TABLE "comment" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "comment_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"post_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"body" text NOT NULL,
	"blocked" boolean DEFAULT false NOT NULL,
	"block_reason" text,
	"up_count" integer DEFAULT 0 NOT NULL,
	"down_count" integer DEFAULT 0 NOT NULL,
	"report_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "comment_counts_non_negative" CHECK ("comment"."up_count" >= 0 and "comment"."down_count" >= 0 and "comment"."report_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "comment_vote" (
	"member_id" integer NOT NULL,
	"comment_id" integer NOT NULL,
	"direction" "vote_direction" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "comment_vote_pk" PRIMARY KEY("member_id","comment_id")
);
--> statement-breakpoint
CREATE TABLE "post" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "post_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"category" "board_category" NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"notice" boolean DEFAULT false NOT NULL,
	"blocked" boolean DEFAULT false NOT NULL,
	"block_reason" text,
	"up_count" integer DEFAULT 0 NOT NULL,
	"down_count" integer DEFAULT 0 NOT NULL,
	"report_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "post_counts_non_negative" CHECK ("post"."up_count" >= 0 and "post"."down_count" >= 0 and "post"."report_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "post_vote" (
	"member_id" integer NOT NULL,
	"post_id" integer NOT NULL,
	"direction" "vote_direction" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "post_vote_pk" PRIMARY KEY("member_id","post_id")
);
--> statement-breakpoint
CREATE TABLE "report" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "report_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"target_type" "report_target_type" NOT NULL,
	"target_id" integer NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "report_member_target_uq" UNIQUE("member_id","target_type","target_id")
);
--> statement-breakpoint
CREATE TABLE "tag_category" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "tag_category_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"boards" "board_category"[] DEFAULT '{}'::board_category[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tag_category_name_uq" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "iap_purchase" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "iap_purchase_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"member_id" integer NOT NULL,
	"product_id" text NOT NULL,
	"purchase_token" text NOT NULL,
	"order_id" text,
	"expires_at" timestamp with time zone,
	"raw" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "iap_purchase_purchase_token_uq" UNIQUE("purchase_token")
);
--> statement-breakpoint
CREATE TABLE "store_notification" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "store_notification_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"message_id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone,
	"error" text,
	CONSTRAINT "store_notification_message_id_uq" UNIQUE("message_id")
);
--> statement-breakpoint
ALTER TABLE "auth_session" ADD CONSTRAINT "auth_session_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "point_history" ADD CONSTRAINT "point_history_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account" ADD CONSTRAINT "account_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_entry" ADD CONSTRAINT "account_entry_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_entry" ADD CONSTRAINT "account_entry_account_id_account_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."account"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "budget" ADD CONSTRAINT "budget_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "budget_income" ADD CONSTRAINT "budget_income_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "budget_onetime" ADD CONSTRAINT "budget_onetime_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "category" ADD CONSTRAINT "category_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "category" ADD CONSTRAINT "category_parent_fk" FOREIGN KEY ("parent_id","member_id") REFERENCES "public"."category"("id","member_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "default_category" ADD CONSTRAINT "default_category_parent_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."default_category"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entry_tag" ADD CONSTRAINT "entry_tag_entry_id_account_entry_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."account_entry"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entry_tag" ADD CONSTRAINT "entry_tag_tag_id_tag_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tag"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quick_entry" ADD CONSTRAINT "quick_entry_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quick_entry" ADD CONSTRAINT "quick_entry_account_id_account_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."account"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recurring" ADD CONSTRAINT "recurring_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recurring" ADD CONSTRAINT "recurring_account_id_account_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."account"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag" ADD CONSTRAINT "tag_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "investment_holding" ADD CONSTRAINT "investment_holding_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "investment_trade" ADD CONSTRAINT "investment_trade_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "investment_trade" ADD CONSTRAINT "investment_trade_holding_id_investment_holding_id_fk" FOREIGN KEY ("holding_id") REFERENCES "public"."investment_holding"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "board_image" ADD CONSTRAINT "board_image_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "board_tag" ADD CONSTRAINT "board_tag_tag_category_id_tag_category_id_fk" FOREIGN KEY ("tag_category_id") REFERENCES "public"."tag_category"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment" ADD CONSTRAINT "comment_post_id_post_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."post"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment" ADD CONSTRAINT "comment_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_vote" ADD CONSTRAINT "comment_vote_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_vote" ADD CONSTRAINT "comment_vote_comment_id_comment_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."comment"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post" ADD CONSTRAINT "post_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_vote" ADD CONSTRAINT "post_vote_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_vote" ADD CONSTRAINT "post_vote_post_id_post_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."post"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report" ADD CONSTRAINT "report_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD CONSTRAINT "iap_purchase_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "auth_session_member_idx" ON "auth_session" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "auth_session_expires_at_idx" ON "auth_session" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "member_email_lower_uq" ON "member" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "member_plan_expires_at_idx" ON "member" USING btree ("plan_expires_at") WHERE "member"."plan" = 'PREMIUM' and "member"."plan_expires_at" is not null;--> statement-breakpoint
CREATE INDEX "point_history_member_created_idx" ON "point_history" USING btree ("member_id","created_at");--> statement-breakpoint
CREATE INDEX "point_history_member_reason_created_idx" ON "point_history" USING btree ("member_id","reason","created_at");--> statement-breakpoint
CREATE INDEX "account_member_sort_idx" ON "account" USING btree ("member_id","sort_order");--> statement-breakpoint
CREATE INDEX "account_entry_member_date_idx" ON "account_entry" USING btree ("member_id","entry_date","id");--> statement-breakpoint
CREATE INDEX "account_entry_member_pending_idx" ON "account_entry" USING btree ("member_id") WHERE "account_entry"."pending";--> statement-breakpoint
CREATE INDEX "account_entry_member_category_idx" ON "account_entry" USING btree ("member_id","category");--> statement-breakpoint
CREATE INDEX "account_entry_account_idx" ON "account_entry" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "budget_member_year_month_idx" ON "budget" USING btree ("member_id","year","month");--> statement-breakpoint
CREATE INDEX "budget_onetime_member_start_idx" ON "budget_onetime" USING btree ("member_id","start_date");--> statement-breakpoint
CREATE INDEX "category_parent_idx" ON "category" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "default_category_parent_idx" ON "default_category" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "entry_tag_tag_idx" ON "entry_tag" USING btree ("tag_id");--> statement-breakpoint
CREATE INDEX "quick_entry_member_sort_idx" ON "quick_entry" USING btree ("member_id","sort_order");--> statement-breakpoint
CREATE INDEX "quick_entry_account_idx" ON "quick_entry" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "recurring_member_idx" ON "recurring" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "recurring_active_idx" ON "recurring" USING btree ("id") WHERE "recurring"."active";--> statement-breakpoint
CREATE INDEX "recurring_account_idx" ON "recurring" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "investment_holding_member_idx" ON "investment_holding" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "investment_trade_holding_replay_idx" ON "investment_trade" USING btree ("holding_id","traded_at","id");--> statement-breakpoint
CREATE INDEX "investment_trade_member_idx" ON "investment_trade" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "board_image_member_idx" ON "board_image" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "comment_post_id_idx" ON "comment" USING btree ("post_id","id");--> statement-breakpoint
CREATE INDEX "comment_member_id_idx" ON "comment" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "comment_blocked_idx" ON "comment" USING btree ("id") WHERE "comment"."blocked";--> statement-breakpoint
CREATE INDEX "comment_reported_idx" ON "comment" USING btree ("report_count") WHERE "comment"."report_count" > 0;--> statement-breakpoint
CREATE INDEX "comment_vote_comment_direction_idx" ON "comment_vote" USING btree ("comment_id","direction");--> statement-breakpoint
CREATE INDEX "post_category_id_idx" ON "post" USING btree ("category","id");--> statement-breakpoint
CREATE INDEX "post_notice_idx" ON "post" USING btree ("id") WHERE "post"."notice";--> statement-breakpoint
CREATE INDEX "post_member_id_idx" ON "post" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "post_hot_idx" ON "post" USING btree ("created_at","up_count");--> statement-breakpoint
CREATE INDEX "post_tags_gin_idx" ON "post" USING gin ("tags");--> statement-breakpoint
CREATE INDEX "post_blocked_idx" ON "post" USING btree ("id") WHERE "post"."blocked";--> statement-breakpoint
CREATE INDEX "post_reported_idx" ON "post" USING btree ("report_count") WHERE "post"."report_count" > 0;--> statement-breakpoint
CREATE INDEX "post_vote_post_direction_idx" ON "post_vote" USING btree ("post_id","direction");--> statement-breakpoint
CREATE INDEX "report_target_idx" ON "report" USING btree ("target_type","target_id");--> statement-breakpoint
CREATE INDEX "iap_purchase_member_created_idx" ON "iap_purchase" USING btree ("member_id","created_at");--> statement-breakpoint
CREATE INDEX "store_notification_unprocessed_idx" ON "store_notification" USING btree ("received_at") WHERE "store_notification"."processed_at" is null;