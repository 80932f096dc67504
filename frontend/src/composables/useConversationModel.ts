// The model that answers a conversation: its own choice (the header's
// picker), else its assistant profile's model, else the app's model; and
// what the model server says about the models it has.
import { computed, type Ref } from 'vue'
import type { ModelInfo } from '../types'
import { DEFAULT_PROFILE } from '../types'
import { useConversationsStore } from '../stores/conversations'
import { useSettingsStore } from '../stores/settings'

export function useConversationModel(id: Ref<string | null>) {
  const conversations = useConversationsStore()
  const settings = useSettingsStore()
  const conversation = computed(() => (id.value ? conversations.byId(id.value) ?? null : null))
  /** The model of the conversation's profile, or the app's model. */
  const fallback = computed(() => {
    const name = conversation.value?.assistant || conversations.newAssistant || DEFAULT_PROFILE
    const profileModel = settings.profiles.find((p) => p.name === name)?.model
    return profileModel || settings.status?.model || settings.settings?.model || ''
  })
  const chosen = computed(() => conversation.value?.model ?? '')
  const model = computed(() => chosen.value || fallback.value)
  const models = computed<ModelInfo[]>(() => settings.status?.models ?? [])
  return { conversation, chosen, fallback, model, models }
}
