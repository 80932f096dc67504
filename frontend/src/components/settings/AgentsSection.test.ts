import { describe, expect, it } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { defineComponent, h } from 'vue'
import AgentsSection from './AgentsSection.vue'
import { provideSettingsForm } from './settingsForm'
import { FakeTransport } from '../../transport/fake'
import { setTransport } from '../../transport'

function mountSection(t: FakeTransport) {
  setActivePinia(createPinia())
  setTransport(t)
  const Host = defineComponent({
    setup() {
      provideSettingsForm()
      return () => h(AgentsSection)
    },
  })
  return mount(Host)
}

describe('AgentsSection', () => {
  it('makes a token, shows each agent its setup with it, lists and revokes it', async () => {
    const t = new FakeTransport()
    const w = mountSection(t)
    await flushPromises()
    expect(w.get('[data-testid="agents-listening"]').text()).toContain('http://127.0.0.1:8765/mcp')
    await w.get('[data-testid="agent-token-name"]').setValue('codex')
    await w.get('[data-testid="connect-agent"]').trigger('click')
    await flushPromises()
    const token = t.agentTokenList[0]!
    expect(token.name).toBe('codex')
    expect(w.get('[data-testid="agent-setup-text"]').text()).toContain(`claude mcp add --transport http --header "Authorization: Bearer parley_agent_${token.id}"`)
    await w.get('[data-testid="agent-tab-codex"]').trigger('click')
    expect(w.get('[data-testid="agent-setup-text"]').text()).toContain('[mcp_servers.parley]')
    expect(w.get('[data-testid="agent-tokens"]').text()).toContain('codex')
    await w.get('[aria-label="Revoke codex"]').trigger('click')
    await flushPromises()
    expect(t.agentTokenList).toEqual([])
    expect(w.find('[data-testid="agent-setup"]').exists()).toBe(false)
  })

  it('says why when the address is taken', async () => {
    const t = new FakeTransport()
    t.listener = { enabled: true, addr: '127.0.0.1:8765', running: false, local_api: false, error: '127.0.0.1:8765 is taken: another Parley or `parley serve` may be running there.' }
    const w = mountSection(t)
    await flushPromises()
    expect(w.get('[role="alert"]').text()).toContain('is taken')
  })
})
