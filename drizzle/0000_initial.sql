CREATE TABLE "policies" (
	"id" serial PRIMARY KEY NOT NULL,
	"content_class" text NOT NULL,
	"version" integer NOT NULL,
	"min_size_bytes" bigint NOT NULL,
	"min_semantic_density" double precision NOT NULL,
	"max_pass_number" bigint NOT NULL,
	"required_fields" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"description" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "policies_class_version_key" UNIQUE("content_class","version")
);
--> statement-breakpoint
CREATE TABLE "passes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"chain_id" text NOT NULL,
	"pass_id" text NOT NULL,
	"pass_number" bigint NOT NULL,
	"input_content_hash" text,
	"current_content_hash" text NOT NULL,
	"current_size_bytes" bigint NOT NULL,
	"is_parseable" boolean NOT NULL,
	"schema_valid" boolean NOT NULL,
	"semantic_density_score" double precision NOT NULL,
	"content_class" text NOT NULL,
	"metadata" jsonb,
	"client_verdict" text,
	"client_manifest_digest" text,
	"verdict" text NOT NULL,
	"directive" text NOT NULL,
	"manifest_digest" text NOT NULL,
	"policy_version" integer NOT NULL,
	"client_mismatch" boolean NOT NULL,
	"body_digest" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "passes_chain_pass_key" UNIQUE("chain_id","pass_id")
);
--> statement-breakpoint
CREATE TABLE "boundaries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"chain_id" text NOT NULL,
	"pass_number" bigint NOT NULL,
	"strategy" text NOT NULL,
	"reason" text NOT NULL,
	"restore_pass_id" text,
	"relaxed_policy" jsonb,
	"body_digest" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "boundaries_chain_pass_number_key" UNIQUE("chain_id","pass_number")
);
--> statement-breakpoint
CREATE TABLE "chains" (
	"chain_id" text PRIMARY KEY NOT NULL,
	"content_class" text NOT NULL,
	"pass_count" integer NOT NULL,
	"boundary_count" integer NOT NULL,
	"last_pass_id" text,
	"last_pass_number" bigint,
	"last_verdict" text,
	"collapse_pass_id" text,
	"collapse_pass_number" bigint,
	"collapse_verdict" text,
	"has_floor_breach" boolean NOT NULL,
	"has_collapse_imminent" boolean NOT NULL,
	"mismatch_count" integer NOT NULL,
	"integrity_count" integer NOT NULL,
	"min_density" double precision,
	"min_size_bytes" bigint,
	"first_seen_at" timestamp (3) with time zone NOT NULL,
	"last_activity_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trace_rejections" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"trace_id" text,
	"chain_id" text,
	"node_id" text NOT NULL,
	"node_index" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "traces" (
	"trace_id" text PRIMARY KEY NOT NULL,
	"chain_id" text,
	"conclusions" jsonb NOT NULL,
	"invalidated_paths" jsonb NOT NULL,
	"eviction_boundary_index" integer NOT NULL,
	"residual_digest" text NOT NULL,
	"client_residual_digest" text,
	"digest_mismatch" boolean NOT NULL,
	"node_count" integer NOT NULL,
	"pruned_chatter_count" integer NOT NULL,
	"omitted_falsified_count" integer NOT NULL,
	"nodes" jsonb,
	"body_digest" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "passes_chain_number_idx" ON "passes" USING btree ("chain_id","pass_number","id");--> statement-breakpoint
CREATE INDEX "passes_current_hash_idx" ON "passes" USING btree ("current_content_hash");--> statement-breakpoint
CREATE INDEX "passes_input_hash_idx" ON "passes" USING btree ("input_content_hash");--> statement-breakpoint
CREATE INDEX "chains_last_activity_idx" ON "chains" USING btree ("last_activity_at","chain_id");--> statement-breakpoint
CREATE INDEX "chains_class_activity_idx" ON "chains" USING btree ("content_class","last_activity_at","chain_id");--> statement-breakpoint
CREATE INDEX "trace_rejections_created_idx" ON "trace_rejections" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "traces_chain_idx" ON "traces" USING btree ("chain_id","created_at");--> statement-breakpoint
CREATE INDEX "traces_created_idx" ON "traces" USING btree ("created_at","trace_id");