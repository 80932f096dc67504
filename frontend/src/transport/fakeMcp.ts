// MCP servers for the FakeTransport (./fake.ts), kept like the Go side keeps
// them (SPEC §6): names checked, secrets stored but only their keys sent
// back, a value left out keeping the stored secret, tool policies, and an
// import of another host's config that reports what it skipped and why.
import type { MCPImportResult, MCPPolicy, MCPServer, MCPServerConfig, MCPTool } from '../types'
import { MCP_POLICIES, MCP_SECRET_MASK } from '../types'
import { TransportError } from './transport'

export const MCP_NAME = /^[A-Za-z0-9_-]{1,32}$/

export interface FakeMcpServer {
  server: MCPServer
  env: Record<string, string>
  headers: Record<string, string>
}

function modelName(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)
}

export class FakeMcp {
  readonly servers = new Map<string, FakeMcpServer>()

  constructor(private readonly onChange: (s: MCPServer) => void) {}

  /** Seeds a server (tests), connected with these tools unless said otherwise. */
  add(partial: Partial<MCPServer> & Pick<MCPServer, 'name'>, secrets: { env?: Record<string, string>; headers?: Record<string, string> } = {}): MCPServer {
    const env = { ...secrets.env }
    const headers = { ...secrets.headers }
    const server: MCPServer = {
      transport: partial.url ? 'http' : 'stdio',
      args: [],
      enabled: true,
      status: 'connected',
      ...partial,
      env_keys: Object.keys(env).sort(),
      header_keys: Object.keys(headers).sort(),
      tools: (partial.tools ?? []).map((t) => ({ ...t, model_name: t.model_name || modelName(partial.name, t.name) })),
    }
    this.servers.set(server.name, { server, env, headers })
    return structuredClone(server)
  }

  list(): MCPServer[] {
    return [...this.servers.values()].map((s) => structuredClone(s.server)).sort((a, b) => a.name.localeCompare(b.name))
  }

  put(name: string, cfg: MCPServerConfig): MCPServer {
    if (!MCP_NAME.test(name)) throw new TransportError('server name must be 1-32 letters, digits, "_" or "-"', 400)
    const command = (cfg.command ?? '').trim()
    const url = (cfg.url ?? '').trim()
    if (!command && !url) throw new TransportError('a server needs a command (stdio) or a url (http)', 400)
    if (command && url) throw new TransportError('a server has either a command or a url, not both', 400)
    if (url && !/^https?:\/\//.test(url)) throw new TransportError(`url "${url}" must be an http(s) URL`, 400)
    const prev = this.servers.get(name)
    // A key sent with the mask keeps the stored secret.
    const keep = (sent: Record<string, string> | undefined, stored: Record<string, string> | undefined) =>
      Object.fromEntries(Object.entries(sent ?? {}).map(([k, v]) => [k, v === MCP_SECRET_MASK ? (stored?.[k] ?? '') : v]))
    const env = keep(cfg.env, prev?.env)
    const headers = keep(cfg.headers, prev?.headers)
    const enabled = cfg.enabled ?? prev?.server.enabled ?? true
    const server: MCPServer = {
      name,
      transport: url ? 'http' : 'stdio',
      ...(command ? { command } : {}),
      args: command ? [...(cfg.args ?? [])] : [],
      ...(url ? { url } : {}),
      env_keys: Object.keys(env).sort(),
      header_keys: Object.keys(headers).sort(),
      enabled,
      status: enabled ? 'connecting' : 'disabled',
      tools: prev?.server.tools ?? [],
    }
    this.servers.set(name, { server, env, headers })
    this.onChange(structuredClone(server))
    return structuredClone(server)
  }

  /** Sets a server's state as its connection would (tests). */
  setStatus(name: string, status: MCPServer['status'], error?: string, tools?: MCPTool[]): void {
    const s = this.mustGet(name)
    s.server.status = status
    if (error) s.server.error = error
    else delete s.server.error
    if (tools) s.server.tools = tools.map((t) => ({ ...t, model_name: t.model_name || modelName(name, t.name) }))
    this.onChange(structuredClone(s.server))
  }

  remove(name: string): void {
    if (!this.servers.delete(name)) throw new TransportError(`unknown MCP server "${name}"`, 404)
  }

  setPolicy(server: string, tool: string, policy: MCPPolicy): MCPTool {
    if (!MCP_POLICIES.includes(policy)) throw new TransportError('policy must be "allow", "ask" or "block"', 400)
    const s = this.mustGet(server)
    const t = s.server.tools.find((x) => x.name === tool)
    if (!t) throw new TransportError(`unknown tool "${tool}" of server "${server}"`, 404)
    t.policy = policy
    this.onChange(structuredClone(s.server))
    return structuredClone(t)
  }

  importConfig(content: string): MCPImportResult {
    let parsed: unknown
    try {
      parsed = JSON.parse(content)
    } catch (err) {
      throw new TransportError(`the file is not JSON: ${err instanceof Error ? err.message : String(err)}`, 400)
    }
    const list = parsed && typeof parsed === 'object' ? (parsed as { mcpServers?: unknown }).mcpServers : undefined
    if (!list || typeof list !== 'object' || Array.isArray(list)) throw new TransportError('the file has no "mcpServers" object', 400)
    const result: MCPImportResult = { added: [], skipped: {} }
    for (const [name, raw] of Object.entries(list as Record<string, unknown>)) {
      if (this.servers.has(name)) {
        result.skipped[name] = 'a server with this name exists'
        continue
      }
      try {
        this.put(name, (raw ?? {}) as MCPServerConfig)
        result.added.push(name)
      } catch (err) {
        result.skipped[name] = err instanceof Error ? err.message : String(err)
      }
    }
    return result
  }

  private mustGet(name: string): FakeMcpServer {
    const s = this.servers.get(name)
    if (!s) throw new TransportError(`unknown MCP server "${name}"`, 404)
    return s
  }
}
