-- 0012: projects (SPEC §14). A project gathers conversations that share
-- instructions (they open the system prompt), knowledge collections
-- (searched with the conversation's own) and, for new conversations, an
-- assistant profile and a model. A conversation is in one project at most;
-- deleting a project leaves its conversations outside any project unless
-- they are deleted with it.
-- (0011 is the memory branch's; numbers may be missing until it lands.)

CREATE TABLE projects (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    instructions TEXT NOT NULL DEFAULT '',
    knowledge    TEXT CHECK (knowledge IS NULL OR json_valid(knowledge)), -- collection ids, JSON array
    profile      TEXT NOT NULL DEFAULT '', -- '' = none: new conversations get the default profile
    model        TEXT NOT NULL DEFAULT '', -- '' = none: the profile's model, else the app's default
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);

ALTER TABLE conversations ADD COLUMN project_id TEXT REFERENCES projects (id) ON DELETE SET NULL;

-- The conversation list of one project, in the list's order.
CREATE INDEX conversations_by_project ON conversations (project_id, pinned DESC, updated_at DESC, id DESC);
