-- 0003: full-text search over conversation titles and the text of user and
-- assistant messages (tool output is noise for search). Both indexes are
-- external-content FTS5 tables keyed by the INTEGER PRIMARY KEY seq columns,
-- so the text is not stored twice; triggers keep them in step.

CREATE VIRTUAL TABLE conversation_search USING fts5 (
    title,
    content = 'conversations',
    content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER conversations_search_insert AFTER INSERT ON conversations BEGIN
    INSERT INTO conversation_search (rowid, title) VALUES (new.seq, new.title);
END;

CREATE TRIGGER conversations_search_delete AFTER DELETE ON conversations BEGIN
    INSERT INTO conversation_search (conversation_search, rowid, title) VALUES ('delete', old.seq, old.title);
END;

CREATE TRIGGER conversations_search_update AFTER UPDATE OF title ON conversations BEGIN
    INSERT INTO conversation_search (conversation_search, rowid, title) VALUES ('delete', old.seq, old.title);
    INSERT INTO conversation_search (rowid, title) VALUES (new.seq, new.title);
END;

CREATE VIRTUAL TABLE message_search USING fts5 (
    content,
    content = 'messages',
    content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);

-- The WHEN clauses of insert and delete must agree: deleting a row from an
-- external-content index that never held it corrupts the index.
CREATE TRIGGER messages_search_insert AFTER INSERT ON messages
WHEN new.role IN ('user', 'assistant') BEGIN
    INSERT INTO message_search (rowid, content) VALUES (new.seq, new.content);
END;

CREATE TRIGGER messages_search_delete AFTER DELETE ON messages
WHEN old.role IN ('user', 'assistant') BEGIN
    INSERT INTO message_search (message_search, rowid, content) VALUES ('delete', old.seq, old.content);
END;

-- One trigger, so the old row leaves the index before the new one enters.
CREATE TRIGGER messages_search_update AFTER UPDATE OF content, role ON messages BEGIN
    INSERT INTO message_search (message_search, rowid, content)
        SELECT 'delete', old.seq, old.content WHERE old.role IN ('user', 'assistant');
    INSERT INTO message_search (rowid, content)
        SELECT new.seq, new.content WHERE new.role IN ('user', 'assistant');
END;

-- Index what earlier versions stored. ('rebuild' would index tool output too.)
INSERT INTO conversation_search (conversation_search) VALUES ('rebuild');
INSERT INTO message_search (rowid, content)
    SELECT seq, content FROM messages WHERE role IN ('user', 'assistant');
