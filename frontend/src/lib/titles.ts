// A conversation's title as shown: the backend names a new conversation
// "New chat" (backend/store DefaultTitle) until its first reply gives it a
// real title; that placeholder, like no title at all, is shown in the
// interface's language.
import { t } from '../i18n'

/** The title the backend gives a conversation that has none yet. */
export const DEFAULT_TITLE = 'New chat'

export function shownTitle(title: string | null | undefined): string {
  return !title || title === DEFAULT_TITLE ? t('chat.newChat') : title
}
