CREATE TYPE "public"."purchase_state" AS ENUM('PENDING', 'ACTIVE', 'CANCELED', 'IN_GRACE', 'ON_HOLD', 'PAUSED', 'EXPIRED', 'REVOKED');--> statement-breakpoint
CREATE TYPE "public"."store_notification_kind" AS ENUM('SUBSCRIPTION', 'VOIDED_PURCHASE', 'ONE_TIME_PRODUCT', 'TEST');--> statement-breakpoint
CREATE TYPE "public"."store_notification_status" AS ENUM('RECEIVED', 'DISPATCHED', 'PROCESSED', 'REJECTED', 'UNMATCHED', 'FAILED');--> statement-breakpoint
CREATE TABLE "store_cancellation" (
	"purchase_token" text PRIMARY KEY NOT NULL,
	"product_id" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"done_at" timestamp with time zone
);
--> statement-breakpoint
DROP INDEX "store_notification_unprocessed_idx";--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD COLUMN "state" "purchase_state" DEFAULT 'PENDING' NOT NULL;--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD COLUMN "auto_renew" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD COLUMN "linked_purchase_token" text;--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD COLUMN "superseded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD COLUMN "voided_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD COLUMN "acknowledged_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD COLUMN "checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "store_notification" ADD COLUMN "kind" "store_notification_kind";--> statement-breakpoint
ALTER TABLE "store_notification" ADD COLUMN "notification_type" integer;--> statement-breakpoint
ALTER TABLE "store_notification" ADD COLUMN "purchase_token" text;--> statement-breakpoint
ALTER TABLE "store_notification" ADD COLUMN "status" "store_notification_status" DEFAULT 'RECEIVED' NOT NULL;--> statement-breakpoint
ALTER TABLE "store_notification" ADD COLUMN "outcome" text;--> statement-breakpoint
ALTER TABLE "store_notification" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "store_notification" ADD COLUMN "dispatched_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "store_cancellation_pending_idx" ON "store_cancellation" USING btree ("requested_at") WHERE "store_cancellation"."done_at" is null;--> statement-breakpoint
CREATE INDEX "iap_purchase_unacknowledged_idx" ON "iap_purchase" USING btree ("created_at") WHERE "iap_purchase"."acknowledged_at" is null and not "iap_purchase"."test" and "iap_purchase"."state" <> 'PENDING';--> statement-breakpoint
CREATE INDEX "store_notification_received_idx" ON "store_notification" USING btree ("id") WHERE "store_notification"."status" = 'RECEIVED';--> statement-breakpoint
CREATE INDEX "store_notification_unmatched_idx" ON "store_notification" USING btree ("purchase_token") WHERE "store_notification"."status" = 'UNMATCHED';