import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { VueWrapper } from '@vue/test-utils'
import App from '../../App.vue'
import { mountInBody, resetDom, setupEnv, settle, type TestEnv } from '../../test-utils'
import { demoPrompts, starterPrompts } from '../../lib/demoPrompts'

const DEMO_PROMPTS = demoPrompts()
const STARTER_PROMPTS = starterPrompts()
import { useSettingsStore } from '../../stores/settings'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})
afterEach(resetDom)

async function mountApp() {
  return mountInBody(App, env)
}

const suggestions = (v: VueWrapper) => v.findAll('[data-testid="demo-suggestion"]')

describe('Suggested prompts on the empty chat', () => {
  it("offer the demo's scenarios in demo mode; clicking one starts a chat with it", async () => {
    env.fake.settings.demo_mode = true
    const v = await mountApp()
    expect(v.find('.empty h2').text()).toContain('Ask anything')
    const shown = suggestions(v)
    expect(shown.map((s) => s.find('.demo-suggestion-prompt').text())).toEqual(DEMO_PROMPTS.map((p) => p.prompt))
    const text = shown.map((s) => s.text().toLowerCase()).join('\n')
    for (const scenario of ['cover letter', 'trip', 'function', 'three questions', 'sub-agent', 'no questions']) {
      expect(text).toContain(scenario)
    }

    await shown[3]!.trigger('click')
    await settle()
    expect(env.fake.callsOf('createConversation')).toHaveLength(1)
    const [[{ id, content }]] = env.fake.callsOf('send') as [[{ id: string; content: string }]]
    expect(content).toBe(DEMO_PROMPTS[3]!.prompt)
    expect(v.find('[data-testid="user-message"]').text()).toBe(DEMO_PROMPTS[3]!.prompt)
    expect(suggestions(v)).toHaveLength(0)
    expect(env.fake.conversations.get(id)!.messages.map((m) => m.content)).toEqual([DEMO_PROMPTS[3]!.prompt])
  })

  it('are sent into the open empty conversation, not a new one', async () => {
    env.fake.settings.demo_mode = true
    const conv = env.fake.addConversation({ id: 'c1', title: 'New chat' })
    const v = await mountApp()
    await v.find('[data-testid="conversation-open"]').trigger('click')
    await settle()
    await suggestions(v)[0]!.trigger('click')
    await settle()
    expect(env.fake.callsOf('createConversation')).toHaveLength(0)
    expect(env.fake.callsOf('send')).toEqual([[{ id: conv.id, content: DEMO_PROMPTS[0]!.prompt }]])
  })

  it("without demo mode offer everyday prompts, and the demo's when it is turned on", async () => {
    const v = await mountApp()
    expect(v.find('.empty h2').exists()).toBe(true)
    expect(v.find('[data-testid="demo-suggestions"]').exists()).toBe(false)
    const starters = v.findAll('[data-testid="suggestion"]')
    expect(starters.map((s) => s.find('.demo-suggestion-prompt').text())).toEqual(STARTER_PROMPTS.map((p) => p.prompt))

    const settings = useSettingsStore()
    await settings.save({ ...settings.settings!, demo_mode: true })
    await settle()
    expect(suggestions(v)).toHaveLength(DEMO_PROMPTS.length)
    expect(v.findAll('[data-testid="suggestion"]')).toHaveLength(0)
    await settings.save({ ...settings.settings!, demo_mode: false })
    await settle()
    expect(v.find('[data-testid="demo-suggestions"]').exists()).toBe(false)
    expect(v.findAll('[data-testid="suggestion"]')).toHaveLength(STARTER_PROMPTS.length)
  })

  it('send an everyday prompt to the model', async () => {
    const v = await mountApp()
    await v.findAll('[data-testid="suggestion"]')[1]!.trigger('click')
    await settle()
    const [[{ content }]] = env.fake.callsOf('send') as [[{ content: string }]]
    expect(content).toBe(STARTER_PROMPTS[1]!.prompt)
  })
})
