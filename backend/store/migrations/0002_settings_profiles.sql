-- 0002: app settings and assistant profiles.

CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL CHECK (json_valid(value)),
    updated_at TEXT NOT NULL
);

CREATE TABLE profiles (
    name          TEXT PRIMARY KEY,
    system_prompt TEXT NOT NULL DEFAULT '',
    model         TEXT NOT NULL DEFAULT '', -- '' = the app's default model
    tools         TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tools)),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
