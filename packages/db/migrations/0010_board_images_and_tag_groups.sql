CREATE TABLE "comment_image" (
	"member_id" integer NOT NULL,
	"comment_id" integer NOT NULL,
	"image_id" text NOT NULL,
	CONSTRAINT "comment_image_pk" PRIMARY KEY("comment_id","image_id")
);
--> statement-breakpoint
CREATE TABLE "post_image" (
	"member_id" integer NOT NULL,
	"post_id" integer NOT NULL,
	"image_id" text NOT NULL,
	CONSTRAINT "post_image_pk" PRIMARY KEY("post_id","image_id")
);
--> statement-breakpoint
DROP INDEX "board_image_member_idx";--> statement-breakpoint
ALTER TABLE "board_image" ADD COLUMN "unreferenced_since" timestamp with time zone DEFAULT now();--> statement-breakpoint
ALTER TABLE "comment_image" ADD CONSTRAINT "comment_image_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_image" ADD CONSTRAINT "comment_image_comment_id_comment_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."comment"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_image" ADD CONSTRAINT "comment_image_image_id_board_image_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."board_image"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_image" ADD CONSTRAINT "post_image_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_image" ADD CONSTRAINT "post_image_post_id_post_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."post"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_image" ADD CONSTRAINT "post_image_image_id_board_image_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."board_image"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "comment_image_image_idx" ON "comment_image" USING btree ("image_id");--> statement-breakpoint
CREATE INDEX "post_image_image_idx" ON "post_image" USING btree ("image_id");--> statement-breakpoint
CREATE INDEX "board_image_member_created_idx" ON "board_image" USING btree ("member_id","created_at");--> statement-breakpoint
CREATE INDEX "board_image_unreferenced_idx" ON "board_image" USING btree ("unreferenced_since") WHERE "board_image"."unreferenced_since" is not null;--> statement-breakpoint
ALTER TABLE "board_tag" ADD CONSTRAINT "board_tag_sort_order_non_negative" CHECK ("board_tag"."sort_order" >= 0);--> statement-breakpoint
ALTER TABLE "tag_category" ADD CONSTRAINT "tag_category_sort_order_non_negative" CHECK ("tag_category"."sort_order" >= 0);