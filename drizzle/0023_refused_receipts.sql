CREATE TABLE "refused_receipts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"chain_id" text NOT NULL,
	"pass_id" text,
	"pass_number" bigint,
	"status" integer NOT NULL,
	"code" text NOT NULL,
	"reason" text NOT NULL,
	"issue" text,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "refused_receipts_chain_idx" ON "refused_receipts" USING btree ("chain_id","received_at","id");--> statement-breakpoint
CREATE INDEX "refused_receipts_received_idx" ON "refused_receipts" USING btree ("received_at");