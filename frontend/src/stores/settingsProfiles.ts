// Assistant profiles, as state and actions of the settings store (spread
// into it in ./settings.ts): the profiles (the default one first) and the
// tools they may use, for Settings → Profiles and the assistant pickers.
import type { Profile, ToolInfo } from '../types'
import { DEFAULT_PROFILE } from '../types'
import { useTransport } from '../transport'
import { normalizeProfile } from '../lib/settings'
import { attempt, loadInto } from './asyncState'

export interface ProfilesState {
  /** Assistant profiles (the default one first) and the tools they may use. */
  profiles: Profile[]
  tools: ToolInfo[]
  profilesLoaded: boolean
  profilesLoading: boolean
  profilesError: string | null
}

export function profilesState(): ProfilesState {
  return { profiles: [], tools: [], profilesLoaded: false, profilesLoading: false, profilesError: null }
}

/** What of the settings store the actions use. */
type Host = ProfilesState & { loadProfiles(): Promise<void> }

export const profilesActions = {
  /** Loads the profiles and the tools they can opt in to. */
  loadProfiles(this: Host): Promise<void> {
    return loadInto(this, { loading: 'profilesLoading', loaded: 'profilesLoaded', error: 'profilesError' }, async () => {
      const t = useTransport()
      const [profiles, tools] = await Promise.all([t.profiles(), t.availableTools()])
      this.profiles = profiles.map(normalizeProfile)
      this.tools = tools
    })
  },

  /**
   * Creates or replaces a profile. Resolves with the backend's message when
   * it refuses (shown next to the form), null when saved.
   */
  async saveProfile(this: Host, p: Profile): Promise<string | null> {
    const done = await attempt(this, {}, async () => {
      const saved = normalizeProfile(await useTransport().saveProfile({ ...p, tools: [...p.tools] }))
      const i = this.profiles.findIndex((x) => x.name === saved.name)
      if (i >= 0) this.profiles[i] = saved
      else this.profiles.push(saved)
    })
    return done.ok ? null : done.error
  },

  /** Deletes a profile (the default one resets); resolves with an error message or null. */
  async deleteProfile(this: Host, name: string): Promise<string | null> {
    const done = await attempt(this, {}, () => useTransport().deleteProfile({ name }))
    if (!done.ok) return done.error
    if (name === DEFAULT_PROFILE) {
      // It is back to its defaults: read them.
      await this.loadProfiles()
    } else {
      this.profiles = this.profiles.filter((p) => p.name !== name)
    }
    return null
  },
}
