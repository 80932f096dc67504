// The settings form the panel's sections edit together: the panel creates it
// (provideSettingsForm) and each section takes it (useSettingsForm), so the
// sections share one set of values that Save writes at once.
import { computed, inject, provide, reactive, ref, type ComputedRef, type InjectionKey, type Ref } from 'vue'
import type { ModelStatus, Settings } from '../../types'
import { useSettingsStore } from '../../stores/settings'
import { normalizeSettings, presetFor, type PresetId } from '../../lib/settings'

export interface SettingsForm {
  /** The values being edited (saved on Save). */
  form: Settings
  /** Which server preset is chosen (or 'custom'). */
  preset: Ref<PresetId>
  /** A problem found before saving or connecting, shown in the footer. */
  localError: Ref<string | null>
  /** Said after Connect when the new server can't be reached. */
  connectNote: Ref<string | null>
  /** The saved settings, normalized. */
  saved: ComputedRef<Settings>
  status: ComputedRef<ModelStatus | null>
  /** The form points at another server than the one the status is about. */
  endpointChanged: ComputedRef<boolean>
  /** Demo mode is what answers (saved, and still on in the form): the demo model is the active one. */
  demoActive: ComputedRef<boolean>
  /** The saved settings are still on their way: the form shows defaults until then. */
  loadingSaved: ComputedRef<boolean>
}

const KEY: InjectionKey<SettingsForm> = Symbol('settings-form')

const trimUrl = (u: string) => u.trim().replace(/\/+$/, '')

/** Creates the form from the saved settings and shares it with the sections below. */
export function provideSettingsForm(): SettingsForm {
  const settings = useSettingsStore()
  const form = reactive<Settings>(normalizeSettings(settings.settings))
  const saved = computed(() => normalizeSettings(settings.settings))
  const status = computed(() => settings.status)
  const state: SettingsForm = {
    form,
    preset: ref<PresetId>(presetFor(form.base_url)),
    localError: ref<string | null>(null),
    connectNote: ref<string | null>(null),
    saved,
    status,
    endpointChanged: computed(() => trimUrl(form.base_url) !== trimUrl(saved.value.base_url) || form.api_key !== saved.value.api_key),
    demoActive: computed(() => !!status.value?.demo && form.demo_mode),
    loadingSaved: computed(() => !settings.settings && settings.loading),
  }
  provide(KEY, state)
  return state
}

/** The form of the settings panel this section is in. */
export function useSettingsForm(): SettingsForm {
  const state = inject(KEY)
  if (!state) throw new Error('useSettingsForm: not inside the settings panel')
  return state
}
