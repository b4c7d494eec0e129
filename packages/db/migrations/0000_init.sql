CREATE TYPE "public"."ledger_type" AS ENUM('INCOME', 'EXPENSE');--> statement-breakpoint
CREATE TYPE "public"."auth_provider" AS ENUM('LOCAL', 'IDPONE', 'IDPTWO');--> statement-breakpoint
CREATE TYPE "public"."member_plan" AS ENUM('FREE', 'PREMIUM');--> statement-breakpoint
CREATE TYPE "public"."member_role" AS ENUM('USER', 'ADMIN');--> statement-breakpoint
CREATE TYPE "public"."member_status" AS ENUM('ACTIVE', 'SUSPENDED');--> statement-breakpoint
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
ALTER TABLE "auth_session" ADD CONSTRAINT "auth_session_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "point_history" ADD CONSTRAINT "point_history_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "auth_session_member_idx" ON "auth_session" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "auth_session_expires_at_idx" ON "auth_session" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "member_email_lower_uq" ON "member" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "member_plan_expires_at_idx" ON "member" USING btree ("plan_expires_at") WHERE "member"."plan" = 'PREMIUM' and "member"."plan_expires_at" is not null;--> statement-breakpoint
CREATE INDEX "point_history_member_created_idx" ON "point_history" USING btree ("member_id","created_at");--> statement-breakpoint
CREATE INDEX "point_history_member_reason_created_idx" ON "point_history" USING btree ("member_id","reason","created_at");