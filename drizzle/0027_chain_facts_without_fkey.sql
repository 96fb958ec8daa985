-- Checking this key cost about as much as writing a new ledger's facts at ingest (bench:ingest's
-- content case). The deletes of ledgers (db/ingest/fact-ledger.ts, retention with the chain's
-- source) delete their facts themselves.
ALTER TABLE "chain_facts" DROP CONSTRAINT "chain_facts_ledger_fkey";
