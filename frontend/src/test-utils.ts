// Shared helpers for the unit tests (not a test file itself).
import { createPinia, setActivePinia, type Pinia } from 'pinia'
import { flushPromises } from '@vue/test-utils'
import { FakeTransport } from './transport/fake'
import { setTransport } from './transport'
import type { Card, Question } from './types'

export interface TestEnv {
  pinia: Pinia
  fake: FakeTransport
}

/** A fresh Pinia and FakeTransport, injected as the transport in use. */
export function setupEnv(): TestEnv {
  const pinia = createPinia()
  setActivePinia(pinia)
  const fake = new FakeTransport()
  setTransport(fake)
  return { pinia, fake }
}

export function q(partial: Partial<Question> & Pick<Question, 'question'>): Question {
  return { options: [], multiSelect: false, allowCustom: true, ...partial }
}

export function makeCard(partial: Partial<Card> = {}): Card {
  return {
    question_id: 'card-1',
    conversationId: 'conv-1',
    status: 'pending',
    questions: [
      q({
        question: 'Which database?',
        header: 'Database',
        options: [
          { label: 'Postgres', description: 'Relational, battle-tested' },
          { label: 'SQLite', description: 'A single file' },
          { label: 'MongoDB' },
        ],
      }),
    ],
    created_at: '2026-01-01T10:00:00.000Z',
    expires_at: null,
    ...partial,
  }
}

export async function settle(): Promise<void> {
  await flushPromises()
  await flushPromises()
}
