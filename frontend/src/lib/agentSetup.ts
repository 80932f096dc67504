// Ready-to-paste setups that connect an agent to Parley's MCP server (SPEC
// §10). Each follows that tool's own documentation (README.md, "Connect an
// agent", says which and how it was checked): Claude Code's `claude mcp add
// --transport http … --header`, Codex's [mcp_servers.<name>] table in
// ~/.codex/config.toml with bearer_token_env_var, Goose's stdio extension in
// ~/.config/goose/config.yaml (through `parley mcp`), Cursor's mcp.json
// (mcpServers with url and headers), VS Code's .vscode/mcp.json (servers
// with type http) and the plain mcpServers JSON other hosts read.

export interface AgentSetup {
  id: string
  label: string
  /** Where it goes, in words. */
  where: string
  text: string
}

/** The environment variable the Codex setup reads the token from. */
export const TOKEN_ENV = 'PARLEY_AGENT_TOKEN'

export function agentSetups(url: string, token: string): AgentSetup[] {
  const auth = `Bearer ${token}`
  const json = (v: unknown) => JSON.stringify(v, null, 2)
  return [
    {
      id: 'claude-code',
      label: 'Claude Code',
      where: 'Run in a terminal (add --scope user for every project). For permission prompts: claude -p … --permission-prompt-tool mcp__parley__request_permission',
      text: `claude mcp add --transport http --header "Authorization: ${auth}" parley ${url}`,
    },
    {
      id: 'codex',
      label: 'Codex',
      where: `~/.codex/config.toml, with ${TOKEN_ENV} exported in the shell that starts Codex`,
      text: `# export ${TOKEN_ENV}=${token}\n[mcp_servers.parley]\nurl = "${url}"\nbearer_token_env_var = "${TOKEN_ENV}"\n`,
    },
    {
      id: 'goose',
      label: 'Goose',
      where: '~/.config/goose/config.yaml, under extensions: (runs `parley mcp`, which makes its own token)',
      text: `extensions:\n  parley:\n    enabled: true\n    type: stdio\n    name: parley\n    cmd: parley\n    args: [mcp]\n    timeout: 300\n`,
    },
    {
      id: 'cursor',
      label: 'Cursor',
      where: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
      text: json({ mcpServers: { parley: { url, headers: { Authorization: auth } } } }),
    },
    {
      id: 'vscode',
      label: 'VS Code',
      where: '.vscode/mcp.json in the workspace (or MCP: Open User Configuration)',
      text: json({ servers: { parley: { type: 'http', url, headers: { Authorization: auth } } } }),
    },
    {
      id: 'json',
      label: 'MCP JSON',
      where: 'Any host that reads mcpServers; hosts that start a command can use {"command":"parley","args":["mcp"]} instead',
      text: json({ mcpServers: { parley: { type: 'http', url, headers: { Authorization: auth } } } }),
    },
  ]
}
