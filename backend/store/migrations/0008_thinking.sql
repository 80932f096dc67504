-- 0008: thinking models (SPEC §9). An assistant message keeps its thinking
-- apart from its text, how long it thought, and where the thinking came
-- from (the field it goes back in: 'reasoning', 'reasoning_content' or
-- 'think_tags'); '' when it did not think. Profiles and conversations get
-- a thinking setting: 'auto', 'off', 'low', 'medium', 'high', or '' (a
-- profile's: auto; a conversation's: its profile's).

ALTER TABLE messages ADD COLUMN reasoning TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN reasoning_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN reasoning_source TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN thinking TEXT NOT NULL DEFAULT '';
ALTER TABLE profiles ADD COLUMN thinking TEXT NOT NULL DEFAULT '';
