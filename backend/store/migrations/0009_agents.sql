-- 0009: every agent on the machine asks through Parley (SPEC §10). An
-- agent's cards share one conversation, marked with the agent's name; agent
-- tokens are stored as SHA-256 hashes, never in clear.

ALTER TABLE conversations ADD COLUMN agent TEXT NOT NULL DEFAULT '';

CREATE UNIQUE INDEX conversations_by_agent ON conversations (agent) WHERE agent <> '';

CREATE TABLE agent_tokens (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    last_used_at TEXT
);
