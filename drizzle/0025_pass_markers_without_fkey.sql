-- Checking this key cost about as much as writing a pass's marker links at ingest
-- (bench:markers). Retention, the one delete of passes, deletes their links itself.
ALTER TABLE "pass_markers" DROP CONSTRAINT "pass_markers_pass_fkey";
