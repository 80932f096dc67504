// MCP servers (SPEC §6): the list with each server's state and tools, kept
// live by `mcp:server` events, and the actions of Settings → Tools → MCP
// servers. Secret values never reach the UI: only env/header key names.
import { defineStore } from 'pinia'
import type { MCPImportResult, MCPPolicy, MCPServer, MCPServerConfig } from '../types'
import { useTransport } from '../transport'
import { normalizeImportResult, normalizeMCPServer } from '../lib/mcp'
import { keepAllSecrets } from '../lib/mcpConfig'
import { eventsDuringLoadsPerStore } from '../lib/eventsDuringLoads'
import { attempt, loadInto } from './asyncState'

interface State {
  servers: Record<string, MCPServer>
  loaded: boolean
  loading: boolean
  loadError: string | null
  /** Last error per server name (a failed save, remove or policy change). */
  errors: Record<string, string | null>
  /** Calls under way per server name. */
  busy: Record<string, boolean>
  /** Names removed here: a late event about them is ignored. */
  removed: Record<string, true>
}

/**
 * The server states events brought while a load was on its way: the list it
 * answers with must not overwrite them (a server that connected meanwhile
 * would read "Connecting…" until its next change).
 */
const statesDuringLoads = eventsDuringLoadsPerStore<string, MCPServer>()

export const useMcpStore = defineStore('mcp', {
  state: (): State => ({ servers: {}, loaded: false, loading: false, loadError: null, errors: {}, busy: {}, removed: {} }),

  getters: {
    /** Servers by name. */
    list(state): MCPServer[] {
      return Object.values(state.servers).sort((a, b) => a.name.localeCompare(b.name))
    },
  },

  actions: {
    load(): Promise<void> {
      return loadInto(this, { loading: 'loading', loaded: 'loaded', error: 'loadError' }, () =>
        statesDuringLoads(this).load(
          async () => (await useTransport().mcpServers()).map(normalizeMCPServer),
          (list, newer) => {
            const next: Record<string, MCPServer> = {}
            for (const s of list) next[s.name] = s
            for (const [name, s] of newer) if (!this.removed[name]) next[name] = s
            this.servers = next
          },
        ),
      )
    },

    /** An `mcp:server` event: the server's new state. */
    onServerEvent(payload: MCPServer | null | undefined): void {
      if (!payload || typeof payload !== 'object' || !payload.name) return
      if (this.removed[payload.name]) return
      const server = normalizeMCPServer(payload)
      this.servers[payload.name] = server
      statesDuringLoads(this).record(payload.name, server)
    },

    /** Adds or replaces a server; resolves true when saved (else the error is in `errors`). */
    async save(name: string, cfg: MCPServerConfig): Promise<boolean> {
      const done = await attempt(this, { key: name, busy: 'busy', error: 'errors' }, async () => {
        const saved = normalizeMCPServer(await useTransport().putMCPServer({ ...cfg, name }))
        delete this.removed[name]
        this.servers[name] = { ...saved, name: saved.name || name }
      })
      return done.ok
    },

    async setEnabled(server: MCPServer, enabled: boolean): Promise<boolean> {
      // Every env and header key is sent as "keep": the stored secrets stay.
      return this.save(server.name, keepAllSecrets(server, enabled))
    },

    async remove(name: string): Promise<boolean> {
      const done = await attempt(this, { key: name, busy: 'busy', error: 'errors' }, async () => {
        await useTransport().deleteMCPServer({ name })
        this.removed[name] = true
        delete this.servers[name]
      })
      return done.ok
    },

    async setPolicy(server: string, tool: string, policy: MCPPolicy): Promise<boolean> {
      const s = this.servers[server]
      const t = s?.tools.find((x) => x.name === tool)
      const before = t?.policy
      if (t) t.policy = policy
      const failed = (err: Error): string => {
        if (t && before) t.policy = before // the choice shown at once goes back
        return err.message
      }
      const done = await attempt(this, { key: server, error: 'errors', failed }, async () => {
        const saved = await useTransport().setMCPToolPolicy({ name: server, tool, policy })
        if (saved && t) t.policy = saved.policy
      })
      return done.ok
    },

    /** Imports another host's config (the file's text); the list is reloaded. */
    async importConfig(content: string): Promise<{ result?: MCPImportResult; error?: string }> {
      const done = await attempt(this, {}, async () => {
        const result = normalizeImportResult(await useTransport().importMCPConfig({ content }))
        for (const name of result.added) delete this.removed[name]
        await this.load()
        return result
      })
      return done.ok ? { result: done.value } : { error: done.error }
    },
  },
})
