-- 0005: how well each model asks (counters per model name, and each
-- answered card's time to answer for the median), and each assistant
-- profile's tool-calling form (SPEC §8).

ALTER TABLE profiles ADD COLUMN tool_calling TEXT NOT NULL DEFAULT ''; -- '' = auto

CREATE TABLE model_stats (
    model       TEXT PRIMARY KEY,
    cards_asked INTEGER NOT NULL DEFAULT 0,
    answered    INTEGER NOT NULL DEFAULT 0,
    declined    INTEGER NOT NULL DEFAULT 0,
    cancelled   INTEGER NOT NULL DEFAULT 0,
    timed_out   INTEGER NOT NULL DEFAULT 0,
    repaired    INTEGER NOT NULL DEFAULT 0, -- malformed calls repaired
    refused     INTEGER NOT NULL DEFAULT 0, -- invalid calls sent back with an error
    corrected   INTEGER NOT NULL DEFAULT 0, -- runs corrected by the user after a reply without asking
    updated_at  TEXT    NOT NULL
);

CREATE TABLE model_answer_times (
    model  TEXT    NOT NULL,
    millis INTEGER NOT NULL CHECK (millis >= 0),
    at     TEXT    NOT NULL
);

CREATE INDEX model_answer_times_by_model ON model_answer_times (model);
