-- 0014: the search indexes of messages and knowledge passages are written
-- by the store beside each insert (messages.go indexMessage, knowledge_tx.go
-- insertPassage), no longer by AFTER INSERT triggers.
--
-- A statement that fires a trigger opens a statement savepoint, and FTS5
-- writes its pending terms to disk at every savepoint (fts5_main.c,
-- fts5SavepointMethod -> sqlite3Fts5StorageSync). So each message or
-- passage inserted became a segment of its own instead of one per commit,
-- and the index cost twice the insert itself. Without the triggers
-- (sqlite3 3.40.1, this machine): BenchmarkAppendMessage batch-10 8,400 ->
-- 12,200 msg/s, batch-100 12,700 -> 21,800; BenchmarkIndexMarkdown's
-- keyword index 4.9 -> 8.0 MB/s.
--
-- The delete and update triggers stay: a statement that deletes many rows
-- (a conversation, a file's passages) opens one savepoint, not one per row,
-- and they keep the index exact whatever deletes the rows (cascades).
-- Whatever inserts into messages or knowledge_chunks must index the row.

DROP TRIGGER messages_search_insert;
DROP TRIGGER knowledge_chunks_search_insert;
