CREATE TABLE "board_post_count" (
	"category" "board_category" NOT NULL,
	"tag" text NOT NULL,
	"blocked" boolean NOT NULL,
	"post_count" integer NOT NULL,
	CONSTRAINT "board_post_count_pk" PRIMARY KEY("category","tag","blocked")
);
--> statement-breakpoint
CREATE TABLE "post_tag" (
	"post_id" integer NOT NULL,
	"tag" text NOT NULL,
	"category" "board_category" NOT NULL,
	"notice" boolean NOT NULL,
	"blocked" boolean NOT NULL,
	CONSTRAINT "post_tag_pk" PRIMARY KEY("post_id","tag")
);
--> statement-breakpoint
CREATE TABLE "spam_keyword" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "spam_keyword_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"keyword" text NOT NULL,
	"normalized" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spam_keyword_normalized_uq" UNIQUE("normalized")
);
--> statement-breakpoint
DROP INDEX "post_category_id_idx";--> statement-breakpoint
DROP INDEX "post_notice_idx";--> statement-breakpoint
DROP INDEX "post_tags_gin_idx";--> statement-breakpoint
DROP INDEX "post_hot_idx";--> statement-breakpoint
ALTER TABLE "post" ADD COLUMN "comment_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "member" ADD COLUMN "profile_image_hash" text;--> statement-breakpoint
ALTER TABLE "post_tag" ADD CONSTRAINT "post_tag_post_id_post_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."post"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "post_tag_order_idx" ON "post_tag" USING btree ("tag","category","notice" DESC NULLS FIRST,"post_id" DESC NULLS FIRST,"blocked");--> statement-breakpoint
CREATE INDEX "comment_hot_idx" ON "comment" USING btree ("post_id","id") WHERE "comment"."up_count" >= 50;--> statement-breakpoint
CREATE INDEX "post_board_order_idx" ON "post" USING btree ("category","notice" DESC NULLS FIRST,"id" DESC NULLS FIRST,"blocked");--> statement-breakpoint
CREATE INDEX "post_hot_idx" ON "post" USING btree ("created_at") WHERE "post"."up_count" >= 50;--> statement-breakpoint
ALTER TABLE "post" ADD CONSTRAINT "post_comment_count_non_negative" CHECK ("post"."comment_count" >= 0);