import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import ModelStatsSection from './ModelStatsSection.vue'
import { mountInBody, resetDom, settle, setupEnv, type TestEnv } from '../../test-utils'
import { formatAnswerTime } from '../../stores/modelStats'
import { setLanguage } from '../../i18n'
import type { ModelStats } from '../../types'

let env: TestEnv

beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  resetDom()
  vi.restoreAllMocks()
})

function stats(partial: Partial<ModelStats> & Pick<ModelStats, 'model'>): ModelStats {
  return { cards_asked: 0, answered: 0, declined: 0, cancelled: 0, timed_out: 0, median_answer_ms: 0, repaired: 0, refused: 0, corrected: 0, updated_at: '', ...partial }
}

describe('Settings → How well each model asks', () => {
  it('shows each model’s cards, outcomes, median answer time, invalid calls and corrections', async () => {
    env.fake.stats = [
      stats({ model: 'llama3.2:3b', cards_asked: 1, timed_out: 1, refused: 3, corrected: 2 }),
      stats({ model: 'qwen3:8b', cards_asked: 7, answered: 4, declined: 1, cancelled: 1, timed_out: 1, median_answer_ms: 12_400, repaired: 2, refused: 1 }),
    ]
    const w = await mountInBody(ModelStatsSection, env)
    const items = w.findAll('[data-testid="model-stats-item"]')
    expect(items.map((i) => i.find('h3').text())).toEqual(['llama3.2:3b', 'qwen3:8b'])
    const qwen = items[1]!
    expect(qwen.find('[data-testid="stat-cards"]').text()).toBe('7')
    expect(qwen.find('[data-testid="stat-outcomes"]').text()).toBe('4 / 1 / 1 / 1')
    expect(qwen.find('[data-testid="stat-median"]').text()).toBe('12 sec')
    expect(qwen.find('[data-testid="stat-invalid"]').text()).toBe('2 / 1')
    const llama = items[0]!
    expect(llama.find('[data-testid="stat-median"]').text()).toBe('—')
    expect(llama.find('[data-testid="stat-corrected"]').text()).toBe('2')
    // The correction count is labelled as the rough signal it is.
    expect(llama.text()).toContain('Runs where you corrected the assistant after it did not ask')
    expect(llama.text()).toContain('a rough signal')
    expect(llama.text()).toContain('Answered / skipped / cancelled / timed out')
  })

  it('says when there is nothing yet, and resets after a confirmation', async () => {
    env.fake.stats = [stats({ model: 'qwen3:8b', cards_asked: 2 })]
    const w = await mountInBody(ModelStatsSection, env)
    await w.find('[data-testid="stats-reset"]').trigger('click')
    expect(env.fake.callsOf('resetModelStats')).toEqual([])
    await w.find('[data-testid="stats-cancel-reset"]').trigger('click')
    expect(w.findAll('[data-testid="model-stats-item"]')).toHaveLength(1)
    await w.find('[data-testid="stats-reset"]').trigger('click')
    await w.find('[data-testid="stats-confirm-reset"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('resetModelStats')).toEqual([[]])
    expect(w.findAll('[data-testid="model-stats-item"]')).toHaveLength(0)
    expect(w.find('[data-testid="stats-empty"]').text()).toContain('No statistics yet')
    expect((w.find('[data-testid="stats-reset"]').element as HTMLButtonElement).disabled).toBe(true)
  })

  it('exports the settings with the statistics and without the API key', async () => {
    env.fake.stats = [stats({ model: 'qwen3:8b', cards_asked: 2 })]
    env.fake.settings = { ...env.fake.settings, api_key: 'secret' }
    const blobs: Blob[] = []
    vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
      blobs.push(b as Blob)
      return 'blob:settings'
    })
    const clicks: string[] = []
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this.download)
    })
    const w = await mountInBody(ModelStatsSection, env)
    await w.find('[data-testid="settings-export"]').trigger('click')
    await settle()
    expect(clicks).toEqual(['parley-settings.json'])
    const text = await blobs[0]!.text()
    const out = JSON.parse(text)
    expect(out.model_stats).toEqual(env.fake.stats)
    expect(out.settings.api_key).toBe('')
    expect(text).not.toContain('secret')
  })

  it('formats answer times, in the language of the interface', async () => {
    expect(formatAnswerTime(0)).toBe('—')
    expect(formatAnswerTime(1234)).toBe('1.2 sec')
    expect(formatAnswerTime(45_000)).toBe('45 sec')
    expect(formatAnswerTime(200_000)).toBe('3 min 20 sec')
    expect(formatAnswerTime(120_000)).toBe('2 min')
    await setLanguage('de')
    try {
      expect(formatAnswerTime(1234)).toBe('1,2 Sek.')
    } finally {
      await setLanguage('en')
    }
  })
})
