// Agents on the machine (SPEC §10): where Parley listens for them and their
// tokens, for Settings → Agents. A token's secret is kept only from the
// moment it is made until it is revoked or the panel forgets it (`made`).
import { defineStore } from 'pinia'
import type { AgentListener, AgentToken, NewAgentToken } from '../types'
import { useTransport, toError } from '../transport'

interface State {
  listener: AgentListener | null
  tokens: AgentToken[]
  loaded: boolean
  loading: boolean
  error: string | null
  /** The token made last, with its secret (shown only now). */
  made: NewAgentToken | null
}

export const useAgentsStore = defineStore('agents', {
  state: (): State => ({ listener: null, tokens: [], loaded: false, loading: false, error: null, made: null }),

  actions: {
    async load(): Promise<void> {
      this.loading = true
      try {
        const t = useTransport()
        const [listener, tokens] = await Promise.all([t.agentListener(), t.agentTokens()])
        this.listener = listener
        this.tokens = tokens
        this.loaded = true
        this.error = null
      } catch (err) {
        this.error = toError(err).message
      } finally {
        this.loading = false
      }
    },

    /** Makes a token; resolves true when made (its secret is in `made`). */
    async createToken(name: string): Promise<boolean> {
      try {
        this.made = await useTransport().createAgentToken(name)
        this.error = null
      } catch (err) {
        this.error = toError(err).message
        return false
      }
      await this.load()
      return true
    },

    async revoke(id: string): Promise<void> {
      try {
        await useTransport().revokeAgentToken(id)
        if (this.made?.id === id) this.made = null
        this.error = null
      } catch (err) {
        this.error = toError(err).message
        return
      }
      await this.load()
    },
  },
})
