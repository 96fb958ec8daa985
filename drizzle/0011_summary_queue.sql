CREATE TABLE "summary_queue" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"chain_ids" text[] NOT NULL,
	"pass_ids" bigint[] NOT NULL,
	"service_names" jsonb,
	"queued_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
