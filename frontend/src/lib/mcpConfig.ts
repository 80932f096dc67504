// The add/edit form of an MCP server (Settings → Tools → MCP servers) as
// plain data: rows for args, env and headers, and the PUT body built from
// them (SPEC §6). Stored secrets are never known here: a key the server
// already has shows masked, and leaving its value empty keeps the secret.
import type { MCPServer, MCPServerConfig } from '../types'
import { KEEP_SECRET } from './mcp'
import { t } from '../i18n'

export interface SecretRow {
  key: string
  value: string
  /** The server already stores a value for this key (shown masked). */
  stored: boolean
}

export interface ServerDraft {
  name: string
  transport: 'stdio' | 'http'
  command: string
  args: string[]
  env: SecretRow[]
  url: string
  headers: SecretRow[]
  enabled: boolean
}

export const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/

export function draftFromServer(s?: MCPServer | null): ServerDraft {
  if (!s) return { name: '', transport: 'stdio', command: '', args: [], env: [], url: '', headers: [], enabled: true }
  return {
    name: s.name,
    transport: s.transport,
    command: s.command ?? '',
    args: [...s.args],
    env: s.env_keys.map((key) => ({ key, value: '', stored: true })),
    url: s.url ?? '',
    headers: s.header_keys.map((key) => ({ key, value: '', stored: true })),
    enabled: s.enabled,
  }
}

/** Every stored secret kept (enable/disable without opening the form). */
export function keepAllSecrets(s: MCPServer, enabled: boolean): MCPServerConfig {
  const d = draftFromServer(s)
  d.enabled = enabled
  const built = configFromDraft(d)
  return built.cfg ?? { enabled }
}

function rows(list: SecretRow[], what: 'env' | 'header'): { map?: Record<string, string>; error?: string } {
  const map: Record<string, string> = {}
  for (const r of list) {
    const key = r.key.trim()
    if (!key && !r.value) continue
    if (!key) return { error: t(`settings.mcp.config.${what}NoName`) }
    if (key in map) return { error: t(`settings.mcp.config.${what}Twice`, { name: key }) }
    if (!r.value && !r.stored) return { error: t(`settings.mcp.config.${what}NoValue`, { name: key }) }
    map[key] = r.value || KEEP_SECRET
  }
  return { map }
}

/** The PUT body, or the first problem with the form. */
export function configFromDraft(d: ServerDraft): { cfg?: MCPServerConfig; error?: string } {
  if (!SERVER_NAME.test(d.name.trim())) return { error: t('settings.mcp.config.badName') }
  if (d.transport === 'stdio') {
    const command = d.command.trim()
    if (!command) return { error: t('settings.mcp.config.noCommand') }
    const env = rows(d.env, 'env')
    if (env.error) return { error: env.error }
    const cfg: MCPServerConfig = { command, args: d.args.filter((a) => a !== ''), enabled: d.enabled }
    if (Object.keys(env.map!).length) cfg.env = env.map
    return { cfg }
  }
  const url = d.url.trim()
  let ok = false
  try {
    const u = new URL(url)
    ok = u.protocol === 'http:' || u.protocol === 'https:'
  } catch {
    ok = false
  }
  if (!ok) return { error: t('settings.mcp.config.badUrl') }
  const headers = rows(d.headers, 'header')
  if (headers.error) return { error: headers.error }
  const cfg: MCPServerConfig = { url, enabled: d.enabled }
  if (Object.keys(headers.map!).length) cfg.headers = headers.map
  return { cfg }
}
