// Data and helpers of the in-memory FakeTransport (./fake.ts), as the Go
// side has them: ids, auto-titles, the tools and the default profile.
import type { Profile, Role, ToolInfo } from '../types'
import { ASK_TOOL, DEFAULT_PROFILE } from '../types'

export interface PendingPull {
  name: string
  /** Sends a model:pull progress event for this model. */
  progress(status: string, total?: number, completed?: number): void
  resolve(): void
  reject(message: string, status?: number): void
}

export interface FakeCall {
  method: string
  args: unknown[]
}

let seq = 0
export function fakeId(prefix = 'id'): string {
  seq++
  return `${prefix}-${seq.toString(36)}-${Math.random().toString(36).slice(2, 8)}`
}

/** Go's store.AutoTitle: the first non-blank line, at most 60 characters. */
export function autoTitle(text: string): string {
  const line = text
    .split('\n')
    .map((l) => l.trim().replace(/\s+/g, ' '))
    .find((l) => l)
  if (!line) return 'New chat'
  const chars = [...line]
  if (chars.length <= 60) return line
  let head = chars.slice(0, 59).join('')
  if (chars[59] !== ' ' && head.lastIndexOf(' ') > 0) head = head.slice(0, head.lastIndexOf(' '))
  return (head.replace(/[\s,;:.\-–—]+$/, '') || chars.slice(0, 59).join('')) + '…'
}

/** The tools Go's service.AvailableTools lists. */
export const FAKE_TOOLS: ToolInfo[] = [
  { name: ASK_TOOL, description: 'Ask you questions (a card in the chat) before guessing' },
  { name: 'spawn_agents', description: 'Run up to 4 sub-agents in parallel on parts of a task' },
  { name: 'current_time', description: 'Returns the current local date, time, weekday and time zone.' },
  { name: 'calculator', description: 'Evaluates an arithmetic expression exactly.' },
]

/** Go's assistant.DefaultProfile. */
export function defaultProfile(): Profile {
  return {
    name: DEFAULT_PROFILE,
    system_prompt: 'You are Parley, a helpful assistant running on the user\'s own computer.',
    model: '',
    tools: [ASK_TOOL, 'spawn_agents', 'current_time', 'calculator'],
  }
}

export const PROFILE_NAME = /^[\p{L}\p{N} _.-]{1,40}$/u
export const ROLES: Role[] = ['system', 'user', 'assistant', 'tool']

export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T)
}
