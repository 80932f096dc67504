// What the stores fill in of Go's answers (the transports pass them on as
// they come): settings fields left out, lists Go may leave null, and the
// files saved through Transport.saveFile.
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { setupEnv, type TestEnv } from '../test-utils'
import { useSettingsStore } from './settings'
import { useMcpStore } from './mcp'
import { useModelStatsStore } from './modelStats'
import { useConversationsStore } from './conversations'
import { DEFAULT_SETTINGS } from '../lib/settings'
import type { MCPServer, Profile, Settings } from '../types'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})

describe('the stores fill what Go may leave out', () => {
  it('settings: missing fields get their defaults', async () => {
    vi.spyOn(env.fake, 'getSettings').mockResolvedValueOnce({ base_url: 'http://x:1/v1', model: 'm', theme: 'dark' } as Settings)
    const store = useSettingsStore()
    await store.load()
    expect(store.settings).toEqual({ ...DEFAULT_SETTINGS, base_url: 'http://x:1/v1', model: 'm', theme: 'dark' })
    expect(store.settings).toMatchObject({ demo_mode: false, max_pending_questions: 10 })
  })

  it('profiles: a profile without tools gets []', async () => {
    vi.spyOn(env.fake, 'profiles').mockResolvedValueOnce([
      { name: 'default', system_prompt: 'Hi', model: '', tools: ['ask_user_question'] },
      { name: 'Bare', system_prompt: '', model: 'm', tools: null } as unknown as Profile,
    ])
    const store = useSettingsStore()
    await store.loadProfiles()
    expect(store.profiles).toEqual([
      { name: 'default', system_prompt: 'Hi', model: '', tools: ['ask_user_question'] },
      { name: 'Bare', system_prompt: '', model: 'm', tools: [] },
    ])
  })

  it('MCP servers and an import result: null lists become []', async () => {
    vi.spyOn(env.fake, 'mcpServers').mockResolvedValue([{ name: 'files', transport: 'stdio', command: 'npx', args: null, env_keys: null, header_keys: null, enabled: true, status: 'connected', tools: null } as unknown as MCPServer])
    vi.spyOn(env.fake, 'importMCPConfig').mockResolvedValueOnce({ added: null, skipped: null } as never)
    const store = useMcpStore()
    await store.load()
    expect(store.servers.files).toMatchObject({ args: [], env_keys: [], header_keys: [], tools: [] })
    expect(await store.importConfig('{}')).toEqual({ result: { added: [], skipped: {} } })
  })
})

describe('files saved through the transport', () => {
  it('the settings export is saved as parley-settings.json (a download in the browser, the save dialog in the app)', async () => {
    const store = useModelStatsStore()
    const out = await store.saveSettingsExport()
    expect(out).toMatchObject({ kind: 'content', mimeType: 'application/json' })
    const [[file, what]] = env.fake.callsOf('saveFile') as [[{ name: string; mime_type: string; content: string }, string]]
    expect(what).toBe('settings')
    expect(file.name).toBe('parley-settings.json')
    expect(JSON.parse(file.content)).toMatchObject({ format: 'parley-settings', settings: { api_key: '' } })
    expect(file.content.endsWith('}\n')).toBe(true)

    env.fake.nativeFileDialogs = true
    expect(await store.saveSettingsExport()).toEqual({ kind: 'saved', path: '/home/user/Documents/parley-settings.json' })
  })

  it('an exported conversation goes to saveFile as Go named it', async () => {
    env.fake.addConversation({ id: 'c1', title: 'Trip' })
    env.fake.nativeFileDialogs = true
    const store = useConversationsStore()
    expect(await store.exportConversation('c1', 'markdown')).toEqual({ kind: 'saved', path: '/home/user/Documents/conversation.md' })
    expect(env.fake.callsOf('exportConversation')).toEqual([[{ id: 'c1', format: 'markdown' }]])
    expect((env.fake.callsOf('saveFile')[0] as [{ name: string }, string])[1]).toBe('conversation')
    expect(store.notice).toBe('Exported to /home/user/Documents/conversation.md')
  })
})
