CREATE TABLE "ccr_counters" (
	"hour" timestamp (3) with time zone NOT NULL,
	"metric" text NOT NULL,
	"value" bigint NOT NULL,
	CONSTRAINT "ccr_counters_pkey" PRIMARY KEY("hour","metric")
);
--> statement-breakpoint
CREATE TABLE "originals" (
	"hash" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"original" text,
	"compressed" text,
	"size_bytes" bigint NOT NULL,
	"compressed_size_bytes" bigint,
	"content_type" text,
	"tool_name" text,
	"chain_id" text,
	"pass_id" text,
	"original_items" bigint,
	"compressed_items" bigint,
	"original_tokens" bigint,
	"compressed_tokens" bigint,
	"tokens_saved" bigint,
	"retrieval_tokens" bigint NOT NULL,
	"tokens_estimated" boolean DEFAULT false NOT NULL,
	"ttl_seconds" bigint,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"last_retrieved_at" timestamp (3) with time zone,
	"recency_at" timestamp (3) with time zone NOT NULL,
	"retrieval_count" bigint DEFAULT 0 NOT NULL,
	"store_count" bigint DEFAULT 1 NOT NULL,
	"gone_at" timestamp (3) with time zone,
	"gone_reason" text
);
--> statement-breakpoint
CREATE INDEX "originals_hash_prefix_idx" ON "originals" USING btree ("hash" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "originals_live_recency_idx" ON "originals" USING btree ("recency_at","hash") WHERE "originals"."status" = 'live';--> statement-breakpoint
CREATE INDEX "originals_live_expiry_idx" ON "originals" USING btree ("expires_at") WHERE "originals"."status" = 'live' and "originals"."expires_at" is not null;--> statement-breakpoint
CREATE INDEX "originals_created_idx" ON "originals" USING btree ("created_at","hash");--> statement-breakpoint
CREATE INDEX "originals_chain_pass_idx" ON "originals" USING btree ("chain_id","pass_id");