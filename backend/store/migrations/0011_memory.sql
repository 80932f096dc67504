-- 0011: memory (SPEC §14). A memory is one short fact with where it came
-- from (a card's answer, the user, the model) and its scope: project_id
-- NULL applies to every conversation, else to that project's (projects
-- come with their own migration; project_id names one then). A memory made
-- from an answer keeps the question, its option labels and the answer as
-- given, so that auto_answer can answer the same question again. A memory
-- outlives the conversation it came from (conversation_id is then NULL).
-- Cards answered from memory say so (answered_by 'memory', memory_id).

CREATE TABLE memories (
    id              TEXT PRIMARY KEY,
    text            TEXT    NOT NULL CHECK (length(text) BETWEEN 1 AND 500),
    source          TEXT    NOT NULL CHECK (source IN ('answer', 'user', 'model')),
    conversation_id TEXT    REFERENCES conversations (id) ON DELETE SET NULL,
    question_id     TEXT,
    project_id      TEXT,
    auto_answer     INTEGER NOT NULL DEFAULT 0 CHECK (auto_answer IN (0, 1)),
    question        TEXT,                                          -- answer memories: the question text
    options         TEXT CHECK (options IS NULL OR json_valid(options)), -- its option labels, JSON array
    answer          TEXT CHECK (answer IS NULL OR json_valid(answer)),   -- {"selected":[...],"custom":"..."}
    created_at      TEXT    NOT NULL,
    used_at         TEXT,
    CHECK (auto_answer = 0 OR (source = 'answer' AND question IS NOT NULL AND answer IS NOT NULL))
);

CREATE INDEX memories_by_project ON memories (project_id, created_at);
CREATE INDEX memories_by_conversation ON memories (conversation_id);
CREATE INDEX memories_auto_answer ON memories (question) WHERE auto_answer = 1;

ALTER TABLE cards ADD COLUMN answered_by TEXT CHECK (answered_by IS NULL OR answered_by IN ('memory'));
ALTER TABLE cards ADD COLUMN memory_id TEXT;
