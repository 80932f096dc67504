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
  /** Where it goes, in words (the interface's language). */
  where: string
  text: string
}

import { t } from '../i18n'

/** The environment variable the Codex setup reads the token from. */
export const TOKEN_ENV = 'PARLEY_AGENT_TOKEN'

export function agentSetups(url: string, token: string): AgentSetup[] {
  const auth = `Bearer ${token}`
  const json = (v: unknown) => JSON.stringify(v, null, 2)
  return [
    {
      id: 'claude-code',
      label: 'Claude Code',
      where: t('agents.where.claudeCode'),
      text: `claude mcp add --transport http --header "Authorization: ${auth}" parley ${url}`,
    },
    {
      id: 'codex',
      label: 'Codex',
      where: t('agents.where.codex', { env: TOKEN_ENV }),
      text: `# export ${TOKEN_ENV}=${token}\n[mcp_servers.parley]\nurl = "${url}"\nbearer_token_env_var = "${TOKEN_ENV}"\n`,
    },
    {
      id: 'goose',
      label: 'Goose',
      where: t('agents.where.goose'),
      text: `extensions:\n  parley:\n    enabled: true\n    type: stdio\n    name: parley\n    cmd: parley\n    args: [mcp]\n    timeout: 300\n`,
    },
    {
      id: 'cursor',
      label: 'Cursor',
      where: t('agents.where.cursor'),
      text: json({ mcpServers: { parley: { url, headers: { Authorization: auth } } } }),
    },
    {
      id: 'vscode',
      label: 'VS Code',
      where: t('agents.where.vscode'),
      text: json({ servers: { parley: { type: 'http', url, headers: { Authorization: auth } } } }),
    },
    {
      id: 'json',
      label: 'MCP JSON',
      where: t('agents.where.json', { command: '{"command":"parley","args":["mcp"]}' }),
      text: json({ mcpServers: { parley: { type: 'http', url, headers: { Authorization: auth } } } }),
    },
  ]
}
