-- Issue 39: the App Store beside Google Play (decision BL23): the store of each purchase and notification, keys per store, the member's appAccountToken.
CREATE TYPE "public"."purchase_store" AS ENUM('GOOGLE_PLAY', 'APP_STORE');--> statement-breakpoint
ALTER TABLE "iap_purchase" DROP CONSTRAINT "iap_purchase_purchase_token_uq";--> statement-breakpoint
ALTER TABLE "store_notification" DROP CONSTRAINT "store_notification_message_id_uq";--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD COLUMN "store" "purchase_store" DEFAULT 'GOOGLE_PLAY' NOT NULL;--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD COLUMN "sandbox" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "store_notification" ADD COLUMN "store" "purchase_store" DEFAULT 'GOOGLE_PLAY' NOT NULL;--> statement-breakpoint
ALTER TABLE "store_notification" ADD COLUMN "event" text;--> statement-breakpoint
ALTER TABLE "member" ADD COLUMN "app_account_token" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
ALTER TABLE "iap_purchase" ADD CONSTRAINT "iap_purchase_store_token_uq" UNIQUE("store","purchase_token");--> statement-breakpoint
ALTER TABLE "store_notification" ADD CONSTRAINT "store_notification_store_message_uq" UNIQUE("store","message_id");--> statement-breakpoint
ALTER TABLE "member" ADD CONSTRAINT "member_app_account_token_uq" UNIQUE("app_account_token");