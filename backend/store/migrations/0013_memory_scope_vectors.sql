-- 0013: memory (SPEC §14) of one conversation, and memories' vectors.
-- A memory made from an answer to an agent's card (SPEC §10) is scoped to
-- that agent's conversation (scope_conversation_id): only there does it go
-- into prompts or answer cards, and it is the only kind of memory that
-- answers an agent's card. It goes with its conversation. When an
-- embedding model is set, each memory gets its vector (one per model),
-- which ranks the memories nearest the user's message by meaning.

ALTER TABLE memories ADD COLUMN scope_conversation_id TEXT REFERENCES conversations (id) ON DELETE CASCADE;

CREATE INDEX memories_by_scope_conversation ON memories (scope_conversation_id) WHERE scope_conversation_id IS NOT NULL;

CREATE TABLE memory_vectors (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    model     TEXT NOT NULL,
    vector    BLOB NOT NULL, -- float32 little-endian, unit length
    PRIMARY KEY (memory_id, model)
);
