// Prompts the empty chat suggests. The demo's prompts each show a scenario
// of the scripted demo model (backend/modelserver/demo.go and
// demo_topics.go): the words in the prompt pick its card, so they stay in
// English, the only language the scripted model reads, and in step with the
// demo's keywords; what each one shows is said in the user's language. The
// prompts for a real model are the user's own words, so they come from the
// catalogue (prompts.starter).
import { t } from '../i18n'

export interface DemoPrompt {
  /** The message sent when the suggestion is clicked. */
  prompt: string
  /** What the assistant does with it, shown under the prompt. */
  shows: string
}

const DEMO: readonly { id: string; prompt: string }[] = [
  { id: 'coverLetter', prompt: 'Write a cover letter for a design job' },
  { id: 'trip', prompt: 'Plan a weekend trip to Porto' },
  { id: 'code', prompt: 'Write a function that sorts a list of names' },
  { id: 'threeQuestions', prompt: 'Plan my holiday, and ask me three questions first' },
  { id: 'subAgent', prompt: 'Use a sub-agent to research Lisbon' },
  { id: 'noQuestions', prompt: 'Just answer, no questions this time' },
  { id: 'think', prompt: 'Think it through: is 9.11 bigger than 9.9?' },
]

const STARTERS = ['email', 'dinners', 'name', 'review'] as const

/** The demo's scenarios, in the current language where it is not the demo's input. */
export function demoPrompts(): DemoPrompt[] {
  return DEMO.map((d) => ({ prompt: d.prompt, shows: t(`prompts.demo.${d.id}`) }))
}

/** Everyday requests where a good assistant asks before it guesses, in the current language. */
export function starterPrompts(): DemoPrompt[] {
  return STARTERS.map((id) => ({ prompt: t(`prompts.starter.${id}.prompt`), shows: t(`prompts.starter.${id}.shows`) }))
}
