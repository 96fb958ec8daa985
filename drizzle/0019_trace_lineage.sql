CREATE TABLE "trace_findings" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"trace_id" text NOT NULL,
	"kind" text NOT NULL,
	"ancestor_trace_id" text NOT NULL,
	"depth" integer NOT NULL,
	"match_key" text NOT NULL,
	"node_id" text,
	"node_type" text,
	"node_count" integer NOT NULL,
	"successor_text" text,
	"ancestor_text" text NOT NULL,
	"ancestor_receipt" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "parent_trace_id" text;--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "node_keys" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "trace_findings_identity_idx" ON "trace_findings" USING btree ("trace_id","kind","ancestor_trace_id","match_key");--> statement-breakpoint
CREATE INDEX "trace_findings_ancestor_idx" ON "trace_findings" USING btree ("ancestor_trace_id");--> statement-breakpoint
CREATE INDEX "trace_findings_created_idx" ON "trace_findings" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "traces_parent_idx" ON "traces" USING btree ("parent_trace_id");