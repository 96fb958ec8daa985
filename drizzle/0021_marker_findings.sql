CREATE TABLE "marker_findings" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"chain_id" text NOT NULL,
	"pass_id" text NOT NULL,
	"pass_number" bigint NOT NULL,
	"kind" text NOT NULL,
	"hash" text NOT NULL,
	"detail" text NOT NULL,
	"found_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "marker_findings_pass_kind_hash_key" UNIQUE("chain_id","pass_id","kind","hash")
);
--> statement-breakpoint
CREATE TABLE "pass_markers" (
	"chain_id" text NOT NULL,
	"pass_id" text NOT NULL,
	"pass_number" bigint NOT NULL,
	"marker" text NOT NULL,
	"original_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "pass_markers_pass_original_key" UNIQUE("chain_id","pass_id","original_hash")
);
--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "context_tools" jsonb;--> statement-breakpoint
ALTER TABLE "chains" ADD COLUMN "marker_finding_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "marker_findings" ADD CONSTRAINT "marker_findings_pass_fkey" FOREIGN KEY ("chain_id","pass_id") REFERENCES "public"."passes"("chain_id","pass_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pass_markers" ADD CONSTRAINT "pass_markers_pass_fkey" FOREIGN KEY ("chain_id","pass_id") REFERENCES "public"."passes"("chain_id","pass_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "marker_findings_chain_idx" ON "marker_findings" USING btree ("chain_id","pass_number","id");--> statement-breakpoint
CREATE INDEX "marker_findings_found_idx" ON "marker_findings" USING btree ("found_at","kind");--> statement-breakpoint
CREATE INDEX "pass_markers_original_idx" ON "pass_markers" USING btree ("original_hash");--> statement-breakpoint
CREATE INDEX "chains_marker_finding_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE "chains"."marker_finding_count" > 0;