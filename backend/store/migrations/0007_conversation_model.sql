-- 0007: a conversation can have its own model (the chat header's picker);
-- '' = its assistant profile's model, else the app's default.

ALTER TABLE conversations ADD COLUMN model TEXT NOT NULL DEFAULT '';
