CREATE TYPE "public"."moderation_action" AS ENUM('BLOCKED', 'DISMISSED', 'CONTENT_DELETED');--> statement-breakpoint
CREATE TABLE "moderation_event" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "moderation_event_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"target_type" "report_target_type" NOT NULL,
	"target_id" integer NOT NULL,
	"action" "moderation_action" NOT NULL,
	"actor_id" integer,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "post_vote_post_direction_idx";--> statement-breakpoint
DROP INDEX "report_target_idx";--> statement-breakpoint
ALTER TABLE "comment_vote" ADD COLUMN "author_points" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "post_vote" ADD COLUMN "author_points" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "report" ADD COLUMN "counted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "report" ADD COLUMN "snapshot_title" text;--> statement-breakpoint
ALTER TABLE "report" ADD COLUMN "snapshot_body" text;--> statement-breakpoint
ALTER TABLE "report" ADD COLUMN "resolution_id" integer;--> statement-breakpoint
ALTER TABLE "moderation_event" ADD CONSTRAINT "moderation_event_actor_id_member_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."member"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "moderation_event_target_idx" ON "moderation_event" USING btree ("target_type","target_id","id");--> statement-breakpoint
CREATE INDEX "moderation_event_actor_idx" ON "moderation_event" USING btree ("actor_id") WHERE "moderation_event"."actor_id" is not null;--> statement-breakpoint
ALTER TABLE "report" ADD CONSTRAINT "report_resolution_id_moderation_event_id_fk" FOREIGN KEY ("resolution_id") REFERENCES "public"."moderation_event"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "report_resolution_idx" ON "report" USING btree ("resolution_id") WHERE "report"."resolution_id" is not null;--> statement-breakpoint
CREATE INDEX "post_vote_post_direction_idx" ON "post_vote" USING btree ("post_id","direction","created_at","member_id");--> statement-breakpoint
CREATE INDEX "report_target_idx" ON "report" USING btree ("target_type","target_id","id");