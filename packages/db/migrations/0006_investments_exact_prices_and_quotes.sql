CREATE TABLE "stock_quote" (
	"code" text PRIMARY KEY NOT NULL,
	"price" numeric(18, 4),
	"fetched_at" timestamp with time zone,
	"attempted_at" timestamp with time zone NOT NULL,
	CONSTRAINT "stock_quote_price_non_negative" CHECK ("stock_quote"."price" >= 0)
);
--> statement-breakpoint
ALTER TABLE "investment_trade" DROP CONSTRAINT "investment_trade_holding_id_investment_holding_id_fk";
--> statement-breakpoint
DROP INDEX "investment_holding_member_idx";--> statement-breakpoint
DROP INDEX "investment_trade_holding_replay_idx";--> statement-breakpoint
DROP INDEX "investment_trade_member_idx";--> statement-breakpoint
ALTER TABLE "investment_holding" ALTER COLUMN "realized_profit" SET DATA TYPE numeric(38, 10);--> statement-breakpoint
ALTER TABLE "investment_holding" ALTER COLUMN "realized_profit" SET DEFAULT '0';--> statement-breakpoint
ALTER TABLE "investment_trade" ALTER COLUMN "price" SET DATA TYPE numeric(18, 4);--> statement-breakpoint
ALTER TABLE "investment_trade" ALTER COLUMN "fee" SET DATA TYPE numeric(18, 4);--> statement-breakpoint
ALTER TABLE "investment_trade" ALTER COLUMN "fee" SET DEFAULT '0';--> statement-breakpoint
ALTER TABLE "investment_holding" ADD COLUMN "cost_basis" numeric(38, 10) DEFAULT '0' NOT NULL;--> statement-breakpoint
-- The composite foreign key needs the (member_id, id) key first.
ALTER TABLE "investment_holding" ADD CONSTRAINT "investment_holding_member_id_uq" UNIQUE("member_id","id");--> statement-breakpoint
ALTER TABLE "investment_trade" ADD CONSTRAINT "investment_trade_holding_fk" FOREIGN KEY ("member_id","holding_id") REFERENCES "public"."investment_holding"("member_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "investment_trade_member_replay_idx" ON "investment_trade" USING btree ("member_id","holding_id","traded_at","id");--> statement-breakpoint
CREATE INDEX "investment_trade_member_date_idx" ON "investment_trade" USING btree ("member_id","traded_at","id");--> statement-breakpoint
ALTER TABLE "investment_holding" DROP COLUMN "average_price";--> statement-breakpoint
ALTER TABLE "investment_holding" DROP COLUMN "current_price";--> statement-breakpoint
ALTER TABLE "investment_holding" DROP COLUMN "price_updated_at";--> statement-breakpoint
ALTER TABLE "investment_holding" ADD CONSTRAINT "investment_holding_cost_basis_non_negative" CHECK ("investment_holding"."cost_basis" >= 0);