-- 0004: card kinds (SPEC §6): a card asks a question (the model's own), for
-- the approval of an MCP tool call, or for what an MCP server elicits.
-- source is {"type":"model"} or {"type":"mcp","server","tool"}; details
-- holds the kind's own fields (the tool call to approve and the approval's
-- outcome; the elicitation's server, message, mode, schema or url, and the
-- accepted content) as JSON.
ALTER TABLE cards ADD COLUMN kind TEXT NOT NULL DEFAULT 'question' CHECK (kind IN ('question', 'approval', 'elicitation'));
ALTER TABLE cards ADD COLUMN source TEXT CHECK (source IS NULL OR json_valid(source));
ALTER TABLE cards ADD COLUMN details TEXT CHECK (details IS NULL OR json_valid(details));

-- A default profile saved before MCP servers existed gets their tools
-- ("mcp:*"), as a new default profile has them; other profiles opt in.
UPDATE profiles SET tools = json_insert(tools, '$[#]', 'mcp:*')
WHERE name = 'default'
  AND NOT EXISTS (SELECT 1 FROM json_each(profiles.tools) WHERE value LIKE 'mcp:%' OR value LIKE '%\_\_%' ESCAPE '\');
