ALTER TABLE "originals" ADD COLUMN "tenant" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "originals" ADD COLUMN "metadata" jsonb;--> statement-breakpoint
ALTER TABLE "originals" DROP CONSTRAINT "originals_pkey";--> statement-breakpoint
ALTER TABLE "originals" ADD CONSTRAINT "originals_pkey" PRIMARY KEY("tenant","hash");
