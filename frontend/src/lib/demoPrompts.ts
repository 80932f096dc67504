// Prompts the empty chat suggests in demo mode. Each one shows a scenario
// of the scripted demo model (backend/modelserver/demo.go and
// demo_topics.go): the words in the prompt pick its card, so keep them in
// step with the demo's keywords.
export interface DemoPrompt {
  /** The message sent when the suggestion is clicked. */
  prompt: string
  /** What the demo does with it, shown under the prompt. */
  shows: string
}

export const DEMO_PROMPTS: readonly DemoPrompt[] = [
  { prompt: 'Write a cover letter for a design job', shows: 'Asks about tone and length' },
  { prompt: 'Plan a weekend trip to Porto', shows: 'Asks about dates and budget' },
  { prompt: 'Write a function that sorts a list of names', shows: 'Asks which language, and what to add' },
  { prompt: 'Plan my holiday, and ask me three questions first', shows: 'Three questions, one of them open-ended' },
  { prompt: 'Use a sub-agent to research Lisbon', shows: 'A helper agent tries to ask you, and may not' },
  { prompt: 'Just answer, no questions this time', shows: 'A direct reply, no card' },
  { prompt: 'Think it through: is 9.11 bigger than 9.9?', shows: 'Thinks first: watch the thinking, then open it' },
]

/**
 * Prompts the empty chat suggests with a real model: everyday requests
 * where a good assistant asks before it guesses.
 */
export const STARTER_PROMPTS: readonly DemoPrompt[] = [
  { prompt: 'Help me write an email to my landlord about a broken heater', shows: 'It may ask about tone and what you want done' },
  { prompt: 'Plan a week of dinners for two', shows: 'Expect questions about diet, budget and time' },
  { prompt: 'Suggest a name for my new side project', shows: 'It should ask what the project is first' },
  { prompt: 'Review the file I attach and tell me what to fix', shows: 'Attach it with the paperclip, then send' },
]
