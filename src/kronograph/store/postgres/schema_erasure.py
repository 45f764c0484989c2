"""PostgreSQL migration 20: data subjects and the erasure log (docs/forgetting.md).

Kept apart from schema.py only to keep each module short. The erasure log is
distributed by group_id on Citus like every group table (GROUP_TABLES); its
append-only trigger goes with it to the shards.
"""

from __future__ import annotations

__all__ = ["V20"]

# A data subject (a customer id, say) is a key episodes and facts are filed
# under, so ``forget(data_subject=...)`` finds them by index. A fact's key is
# a property of the fact, not of a version: fact_history does not copy it.
# The erasure log is append-only: a trigger refuses every UPDATE and DELETE.
# The function comes first: on Citus, a function command after the parallel
# DDL on distributed tables (the ALTERs) is refused in the same transaction.
V20 = """
CREATE OR REPLACE FUNCTION kronograph_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'KG002';
END
$$;
ALTER TABLE episodes ADD COLUMN IF NOT EXISTS data_subject TEXT;
ALTER TABLE facts ADD COLUMN IF NOT EXISTS data_subject TEXT;
CREATE INDEX IF NOT EXISTS episodes_by_subject ON episodes(group_id, data_subject) WHERE data_subject IS NOT NULL;
CREATE INDEX IF NOT EXISTS facts_by_subject ON facts(group_id, data_subject) WHERE data_subject IS NOT NULL;
CREATE TABLE IF NOT EXISTS erasure_log (
    group_id      TEXT NOT NULL,
    seq           BIGINT NOT NULL,
    receipt_id    TEXT NOT NULL,
    entry         TEXT NOT NULL,
    request_id    TEXT,
    reason        TEXT,
    actor         TEXT,
    on_behalf_of  TEXT,
    recorded_at   BIGINT NOT NULL,
    target        TEXT NOT NULL,
    counts        JSONB NOT NULL DEFAULT '{}',
    verified      BOOLEAN,
    leftovers     INTEGER,
    previous      TEXT NOT NULL,
    digest        TEXT NOT NULL,
    PRIMARY KEY (group_id, seq)
);
DROP TRIGGER IF EXISTS erasure_log_append_only ON erasure_log;
CREATE TRIGGER erasure_log_append_only BEFORE UPDATE OR DELETE ON erasure_log
    FOR EACH ROW EXECUTE FUNCTION kronograph_append_only();
"""
