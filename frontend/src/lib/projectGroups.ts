// The sidebar's grouping by project (SPEC §14): each project with its
// conversations, and the conversations in no project (or in one this window
// does not know, e.g. while the projects load) apart.
import type { Conversation, Project } from '../types'

export interface ProjectGroup {
  project: Project
  items: Conversation[]
}

export interface Grouped {
  /** Every project, by the order given, with its conversations in the order given. */
  groups: ProjectGroup[]
  /** The conversations in no known project, in the order given. */
  rest: Conversation[]
}

export function groupByProject(conversations: readonly Conversation[], projects: readonly Project[]): Grouped {
  const groups = projects.map((project) => ({ project, items: [] as Conversation[] }))
  const byId = new Map(groups.map((g) => [g.project.id, g]))
  const rest: Conversation[] = []
  for (const c of conversations) {
    const g = c.project_id ? byId.get(c.project_id) : undefined
    if (g) g.items.push(c)
    else rest.push(c)
  }
  return { groups, rest }
}

/** The drag data type of a conversation dragged onto a project (its id). */
export const CONVERSATION_DRAG_TYPE = 'application/x-parley-conversation'

/** Whether a drag carries a conversation of the sidebar. */
export function dragsConversation(e: DragEvent): boolean {
  return !!e.dataTransfer && [...e.dataTransfer.types].includes(CONVERSATION_DRAG_TYPE)
}
