CREATE TABLE "chain_fact_ledgers" (
	"chain_id" text PRIMARY KEY NOT NULL,
	"digest" text NOT NULL,
	"in_source" integer NOT NULL,
	"last_pass" bigint,
	"passes_folded" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chain_facts" (
	"chain_id" text NOT NULL,
	"rank" integer NOT NULL,
	"fact_key" text NOT NULL,
	"fact" text NOT NULL,
	"kind" text NOT NULL,
	"salience" double precision NOT NULL,
	"fate" text DEFAULT 'retained' NOT NULL,
	"first_lost_pass" bigint,
	"restored_at_pass" bigint,
	"recoverable_from" text,
	CONSTRAINT "chain_facts_pkey" PRIMARY KEY("chain_id","rank")
);
--> statement-breakpoint
ALTER TABLE "chain_fact_ledgers" ADD CONSTRAINT "chain_fact_ledgers_source_fkey" FOREIGN KEY ("chain_id") REFERENCES "public"."chain_sources"("chain_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chain_facts" ADD CONSTRAINT "chain_facts_ledger_fkey" FOREIGN KEY ("chain_id") REFERENCES "public"."chain_fact_ledgers"("chain_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chain_facts_fate_idx" ON "chain_facts" USING btree ("chain_id","fate","rank");