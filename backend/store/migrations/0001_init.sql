-- 0001: conversations, their messages, runs and question cards.
-- Times are UTC text in a fixed-width RFC 3339 form with nanoseconds
-- (2006-01-02T15:04:05.000000000Z), so they read well and sort as text.
-- Optional values are NULL rather than ''.

-- 'PRLY': marks the file as a Parley database.
PRAGMA application_id = 1347570777;

CREATE TABLE conversations (
    seq        INTEGER PRIMARY KEY, -- stable rowid for the title search index
    id         TEXT    NOT NULL UNIQUE,
    title      TEXT    NOT NULL DEFAULT '',
    assistant  TEXT    NOT NULL DEFAULT '',
    pinned     INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    created_at TEXT    NOT NULL,
    updated_at TEXT    NOT NULL
);

-- The conversation list: pinned first, newest activity first, id as tie-break.
CREATE INDEX conversations_by_list_order ON conversations (pinned DESC, updated_at DESC, id DESC);

CREATE TABLE messages (
    seq             INTEGER PRIMARY KEY, -- insertion order, stable across equal timestamps
    id              TEXT    NOT NULL UNIQUE,
    conversation_id TEXT    NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    run_id          TEXT,
    role            TEXT    NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content         TEXT    NOT NULL DEFAULT '',
    tool_calls      TEXT CHECK (tool_calls IS NULL OR json_valid(tool_calls)),
    tool_call_id    TEXT,
    tool_name       TEXT,
    created_at      TEXT    NOT NULL
);

CREATE INDEX messages_by_conversation ON messages (conversation_id, seq);

CREATE TABLE runs (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    status          TEXT NOT NULL,
    resumed_from    TEXT,
    error           TEXT,
    started_at      TEXT NOT NULL,
    ended_at        TEXT
);

CREATE INDEX runs_by_conversation ON runs (conversation_id, started_at);
CREATE INDEX runs_by_status ON runs (status);

CREATE TABLE cards (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    run_id          TEXT,
    tool_call_id    TEXT,
    status          TEXT NOT NULL,
    questions       TEXT NOT NULL CHECK (json_valid(questions)),
    answers         TEXT CHECK (answers IS NULL OR json_valid(answers)),
    comments        TEXT,
    created_at      TEXT NOT NULL,
    expires_at      TEXT,
    answered_at     TEXT
);

CREATE INDEX cards_by_conversation ON cards (conversation_id, created_at);
CREATE INDEX cards_by_status ON cards (status, created_at);
