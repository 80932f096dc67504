-- 0006: conversations are trees (SPEC §7). Every message has a parent (the
-- message before it on its branch; NULL for a first message); editing a user
-- message or regenerating a reply adds a sibling. The visible path is the
-- chain from the conversation's leaf up to a first message; branch_choices
-- remember, at each branch point, which child was last visible, so that
-- switching back to an earlier branch shows it as it was left. Attachments
-- and per-reply figures are stored with the message.

ALTER TABLE messages ADD COLUMN parent_id TEXT; -- no foreign key: imports insert in order, the store checks it
ALTER TABLE messages ADD COLUMN attachment_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN stats TEXT CHECK (stats IS NULL OR json_valid(stats));

-- The end of the visible path; NULL when it is empty.
ALTER TABLE conversations ADD COLUMN leaf_id TEXT;

-- Children of a message in creation order, and the first messages.
CREATE INDEX messages_by_parent ON messages (conversation_id, parent_id, seq);

CREATE TABLE branch_choices (
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    parent_id       TEXT NOT NULL, -- '' for the first messages
    child_id        TEXT NOT NULL,
    PRIMARY KEY (conversation_id, parent_id)
) WITHOUT ROWID;

CREATE TABLE attachments (
    message_id TEXT    NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    mime_type  TEXT    NOT NULL,
    size       INTEGER NOT NULL,
    data       BLOB    NOT NULL,
    PRIMARY KEY (message_id, position)
); -- a rowid table: WITHOUT ROWID suits small rows, and files are large

-- Earlier conversations were lists: each message's parent is the one
-- before it (tool messages included), and the last one is the leaf.
UPDATE messages SET parent_id = (
    SELECT p.id FROM messages p
    WHERE p.conversation_id = messages.conversation_id AND p.seq < messages.seq
    ORDER BY p.seq DESC LIMIT 1);

UPDATE conversations SET leaf_id = (
    SELECT m.id FROM messages m WHERE m.conversation_id = conversations.id ORDER BY m.seq DESC LIMIT 1);
