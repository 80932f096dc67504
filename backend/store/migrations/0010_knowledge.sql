-- 0010: knowledge (SPEC §11). A collection is a named set of files and
-- folders; its files' passages are indexed for keyword search (FTS5, BM25)
-- and, when an embedding model is set, carry a compact vector.
-- Conversations and profiles name the collections they search; a reply
-- carries the passages it was given (sources).

CREATE TABLE knowledge_collections (
    id         TEXT PRIMARY KEY,
    name       TEXT    NOT NULL,
    paths      TEXT    NOT NULL CHECK (json_valid(paths)), -- absolute paths, JSON array
    cancelled  INTEGER NOT NULL DEFAULT 0 CHECK (cancelled IN (0, 1)), -- indexing stopped by the user
    error      TEXT, -- why the collection could not be indexed at all
    created_at TEXT    NOT NULL,
    updated_at TEXT    NOT NULL
);

-- One row per file found under a collection's paths (skipped files have none).
CREATE TABLE knowledge_files (
    seq           INTEGER PRIMARY KEY,
    collection_id TEXT    NOT NULL REFERENCES knowledge_collections (id) ON DELETE CASCADE,
    path          TEXT    NOT NULL,
    size          INTEGER NOT NULL DEFAULT 0,
    mtime_ns      INTEGER NOT NULL DEFAULT 0,
    hash          TEXT    NOT NULL DEFAULT '', -- SHA-256 of the content last indexed
    status        TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'indexed', 'error')),
    error         TEXT,
    UNIQUE (collection_id, path)
);

CREATE INDEX knowledge_files_by_status ON knowledge_files (collection_id, status);

-- Passages. embedding is the vector quantized to int8 (one byte a
-- dimension, after a float32 scale), embedding_bits its signs (one bit a
-- dimension: the first, coarse pass of a vector search), both NULL until
-- embedded with embedding_model.
CREATE TABLE knowledge_chunks (
    seq             INTEGER PRIMARY KEY,
    file_seq        INTEGER NOT NULL REFERENCES knowledge_files (seq) ON DELETE CASCADE,
    ord             INTEGER NOT NULL,
    locator         TEXT    NOT NULL,
    text            TEXT    NOT NULL,
    embedding_model TEXT,
    embedding       BLOB,
    embedding_bits  BLOB
);

CREATE INDEX knowledge_chunks_by_file ON knowledge_chunks (file_seq, ord);
CREATE INDEX knowledge_chunks_by_model ON knowledge_chunks (embedding_model);

-- Keyword search over the passages and their locators (headings), with
-- English stemming. External content: the text is stored once.
CREATE VIRTUAL TABLE knowledge_search USING fts5 (
    text,
    locator,
    content = 'knowledge_chunks',
    content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER knowledge_chunks_search_insert AFTER INSERT ON knowledge_chunks BEGIN
    INSERT INTO knowledge_search (rowid, text, locator) VALUES (new.seq, new.text, new.locator);
END;

CREATE TRIGGER knowledge_chunks_search_delete AFTER DELETE ON knowledge_chunks BEGIN
    INSERT INTO knowledge_search (knowledge_search, rowid, text, locator) VALUES ('delete', old.seq, old.text, old.locator);
END;

ALTER TABLE conversations ADD COLUMN knowledge TEXT CHECK (knowledge IS NULL OR json_valid(knowledge));
ALTER TABLE profiles ADD COLUMN knowledge TEXT CHECK (knowledge IS NULL OR json_valid(knowledge));
ALTER TABLE messages ADD COLUMN sources TEXT CHECK (sources IS NULL OR json_valid(sources));
