import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import { nextTick } from 'vue'
import RunStatus from './RunStatus.vue'
import { makeCard, setupEnv, type TestEnv } from '../../test-utils'
import { useQuestionsStore } from '../../stores/questions'
import { useChatStore } from '../../stores/chat'
import type { RunState } from '../../types'

let env: TestEnv
let w: VueWrapper | null = null
beforeEach(() => {
  env = setupEnv()
  vi.useFakeTimers()
})
afterEach(() => {
  w?.unmount()
  w = null
  vi.useRealTimers()
})

const pulse = () => w!.find('[data-testid="run-pulse"]')
// The status reads the run's state from the chat store, as the events set it.
const setState = (id: string, state: RunState) => (useChatStore().runStates[id] = state)

// Issue #42: an endless animation makes the page produce a frame every
// refresh; the card and the run's first events waited behind them.
describe('the run status dot', () => {
  it('shows at once and pulses only once the run has gone on for a second', async () => {
    setState('c1', 'requesting')
    w = mount(RunStatus, { props: { conversationId: 'c1' }, global: { plugins: [env.pinia] } })
    expect(w.text()).toBe('Thinking…')
    expect(pulse().exists()).toBe(true)
    expect(pulse().classes()).not.toContain('pulsing')
    await vi.advanceTimersByTimeAsync(900)
    expect(pulse().classes()).not.toContain('pulsing')
    setState('c1', 'streaming') // the same run goes on
    await vi.advanceTimersByTimeAsync(100)
    expect(pulse().classes()).toContain('pulsing')
  })

  it('rests while a card of the conversation waits, and starts over for the next run', async () => {
    setState('c1', 'tool_executing')
    setState('c2', 'tool_executing')
    w = mount(RunStatus, { props: { conversationId: 'c1' }, global: { plugins: [env.pinia] } })
    await vi.advanceTimersByTimeAsync(1000)
    expect(pulse().classes()).toContain('pulsing')
    const questions = useQuestionsStore()
    questions.upsert(makeCard({ question_id: 'q1', conversationId: 'c1' }))
    await nextTick()
    expect(pulse().classes()).not.toContain('pulsing')
    // Another conversation's card does not stop this one's dot.
    await w.setProps({ conversationId: 'c2' })
    await vi.advanceTimersByTimeAsync(1000)
    expect(pulse().classes()).toContain('pulsing')
    // A run that ended and a new one: a second again before it pulses.
    setState('c2', 'idle')
    await nextTick()
    expect(w.find('[data-testid="run-pulse"]').exists()).toBe(false)
    setState('c2', 'requesting')
    await nextTick()
    expect(pulse().classes()).not.toContain('pulsing')
    await vi.advanceTimersByTimeAsync(1000)
    expect(pulse().classes()).toContain('pulsing')
  })
})
