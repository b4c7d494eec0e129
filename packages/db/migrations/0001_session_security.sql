CREATE TABLE "session_cache_invalidation" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "auth_session" ADD COLUMN "user_agent" text;--> statement-breakpoint
ALTER TABLE "auth_session" ADD COLUMN "reauthenticated_at" timestamp with time zone;