CREATE TABLE "remeasurements" (
	"pass_row_id" bigint NOT NULL,
	"method" text NOT NULL,
	"semantic_density_score" double precision NOT NULL,
	"components" jsonb NOT NULL,
	"facts" jsonb,
	"lost_examples" jsonb NOT NULL,
	"measured_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "remeasurements_pkey" PRIMARY KEY("pass_row_id","method")
);
--> statement-breakpoint
ALTER TABLE "remeasurements" ADD CONSTRAINT "remeasurements_pass_row_id_passes_id_fk" FOREIGN KEY ("pass_row_id") REFERENCES "public"."passes"("id") ON DELETE cascade ON UPDATE no action;