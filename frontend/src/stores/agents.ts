// Agents on the machine (SPEC §10): where Parley listens for them and their
// tokens, for Settings → Agents. A token's secret is kept only from the
// moment it is made until it is revoked or the panel forgets it (`made`).
import { defineStore } from 'pinia'
import type { AgentListener, AgentToken, NewAgentToken } from '../types'
import { useTransport } from '../transport'
import { attempt, loadInto } from './asyncState'

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
    load(): Promise<void> {
      return loadInto(this, { loading: 'loading', loaded: 'loaded', error: 'error' }, async () => {
        const t = useTransport()
        const [listener, tokens] = await Promise.all([t.agentListener(), t.agentTokens()])
        this.listener = listener
        this.tokens = tokens
      })
    },

    /** Makes a token; resolves true when made (its secret is in `made`). */
    async createToken(name: string): Promise<boolean> {
      const done = await attempt(this, { error: 'error' }, async () => {
        this.made = await useTransport().createAgentToken({ name })
      })
      if (!done.ok) return false
      await this.load()
      return true
    },

    async revoke(id: string): Promise<void> {
      const done = await attempt(this, { error: 'error' }, async () => {
        await useTransport().revokeAgentToken({ id })
        if (this.made?.id === id) this.made = null
      })
      if (done.ok) await this.load()
    },
  },
})
