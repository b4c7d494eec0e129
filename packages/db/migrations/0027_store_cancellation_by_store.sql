-- A withdrawn member's purchases in either store (decision BL30): the key is the store and the purchase token,
-- as on `iap_purchase`. Existing rows are Google Play's.
ALTER TABLE "store_cancellation" ADD COLUMN "store" "purchase_store" DEFAULT 'GOOGLE_PLAY' NOT NULL;--> statement-breakpoint
ALTER TABLE "store_cancellation" DROP CONSTRAINT "store_cancellation_pkey";--> statement-breakpoint
ALTER TABLE "store_cancellation" ADD CONSTRAINT "store_cancellation_pk" PRIMARY KEY("store","purchase_token");
