import { describe, expect, it } from 'vitest'
import { agentSetups, TOKEN_ENV } from './agentSetup'

describe('agentSetups', () => {
  const url = 'http://127.0.0.1:8765/mcp'
  const token = 'parley_agent_abc'
  const byId = Object.fromEntries(agentSetups(url, token).map((s) => [s.id, s]))

  it('covers every agent the issue names', () => {
    expect(Object.keys(byId)).toEqual(['claude-code', 'codex', 'goose', 'cursor', 'vscode', 'json'])
  })

  it('gives Claude Code its claude mcp add line with the header before the name', () => {
    expect(byId['claude-code']!.text).toBe(`claude mcp add --transport http --header "Authorization: Bearer ${token}" parley ${url}`)
  })

  it('gives Codex a config.toml table reading the token from the environment', () => {
    const t = byId.codex!.text
    expect(t).toContain('[mcp_servers.parley]')
    expect(t).toContain(`url = "${url}"`)
    expect(t).toContain(`bearer_token_env_var = "${TOKEN_ENV}"`)
  })

  it('writes valid JSON for Cursor, VS Code and plain MCP JSON', () => {
    expect(JSON.parse(byId.cursor!.text)).toEqual({ mcpServers: { parley: { url, headers: { Authorization: `Bearer ${token}` } } } })
    expect(JSON.parse(byId.vscode!.text).servers.parley).toEqual({ type: 'http', url, headers: { Authorization: `Bearer ${token}` } })
    expect(JSON.parse(byId.json!.text).mcpServers.parley.type).toBe('http')
  })

  it('starts Goose through parley mcp, with no token in the file', () => {
    expect(byId.goose!.text).toContain('cmd: parley')
    expect(byId.goose!.text).not.toContain(token)
  })
})
