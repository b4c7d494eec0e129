CREATE TABLE "card_cancellation" (
	"member_id" integer NOT NULL,
	"notif_key" text NOT NULL,
	"entry_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "card_cancellation_pk" PRIMARY KEY("member_id","notif_key")
);
--> statement-breakpoint
CREATE TABLE "merchant_category" (
	"member_id" integer NOT NULL,
	"type" "ledger_type" NOT NULL,
	"merchant" text NOT NULL,
	"category" text NOT NULL,
	"uses" integer NOT NULL,
	CONSTRAINT "merchant_category_pk" PRIMARY KEY("member_id","type","merchant","category")
);
--> statement-breakpoint
ALTER TABLE "card_cancellation" ADD CONSTRAINT "card_cancellation_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_category" ADD CONSTRAINT "merchant_category_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;