// The model field of an editor (a profile, a project): a select of the
// server's models with "Other…", which shows a text field for any name; with
// no model list, the text field alone. The profile and project editors
// share it.
import { computed, nextTick, ref, type Ref } from 'vue'
import { useSettingsStore } from '../stores/settings'
import { sameModel } from '../lib/settings'

/** The select's entry that shows the free-text field. */
export const OTHER_MODEL = '\u0000other'

export function useModelChoice(model: () => string, setModel: (m: string) => void, textInput: Ref<HTMLInputElement | null>) {
  const settings = useSettingsStore()
  const serverModels = computed(() => (settings.status?.models ?? []).map((m) => m.name))
  /** '' (none), a server model's name, or OTHER_MODEL. */
  const modelChoice = ref('')
  const showModelText = computed(() => !serverModels.value.length || modelChoice.value === OTHER_MODEL)

  function choiceFor(name: string): string {
    if (!name) return ''
    return serverModels.value.find((m) => sameModel(m, name)) ?? OTHER_MODEL
  }

  /** The select changed: "Other…" keeps a typed name and focuses the field. */
  function onModelChoice(): void {
    if (modelChoice.value === OTHER_MODEL) {
      if (serverModels.value.some((m) => sameModel(m, model()))) setModel('')
      void nextTick(() => textInput.value?.focus())
    } else {
      setModel(modelChoice.value)
    }
  }

  /** Sets the select from the model (an editor opened). */
  function resetChoice(): void {
    modelChoice.value = choiceFor(model())
  }

  return { serverModels, modelChoice, showModelText, onModelChoice, resetChoice }
}
