CREATE TABLE "summary_queue" (
	"chain_id" text NOT NULL,
	"id" bigserial NOT NULL,
	"pass_ids" bigint[] NOT NULL,
	"service_name" text,
	CONSTRAINT "summary_queue_chain_id_id_pk" PRIMARY KEY("chain_id","id")
);
