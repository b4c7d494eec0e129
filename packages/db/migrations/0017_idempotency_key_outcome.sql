-- Idempotency keys record which claim holds them (a new id on takeover) and when the holder's writes first
-- committed (set in the same transaction as those writes), so a retry after an ambiguous failure never runs
-- the request again (docs/decisions.md FO20). Keys claimed before this migration have no claim id.
ALTER TABLE "idempotency_key" ADD COLUMN "claim_id" uuid;--> statement-breakpoint
ALTER TABLE "idempotency_key" ADD COLUMN "committed_at" timestamp with time zone;
