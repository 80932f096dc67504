// The composer's files: added by drop, paste or the paperclip, checked
// (size, kind, and images against the conversation's model), kept per
// conversation until sent or removed.
import { computed, reactive, ref, type Ref } from 'vue'
import type { Attachment, ModelInfo } from '../types'
import { isImage, limitError, readAttachment, visionError } from '../lib/composerFiles'

export function useComposerFiles(key: Ref<string>, model: Ref<string>, models: Ref<ModelInfo[]>) {
  const byKey = reactive<Record<string, Attachment[]>>({})
  const error = ref<string | null>(null)
  const files = computed(() => byKey[key.value] ?? [])

  async function add(list: Iterable<File>): Promise<void> {
    const target = key.value
    const errors: string[] = []
    let n = 0
    for (const file of list) {
      const name = file.name || `pasted-${++n}.${(file.type.split('/')[1] || 'txt').replace('jpeg', 'jpg')}`
      const res = await readAttachment(file, name)
      if (!res.ok) {
        errors.push(res.error)
        continue
      }
      const current = byKey[target] ?? []
      const tooMany = limitError(current, res.attachment)
      if (tooMany) {
        errors.push(tooMany)
        break
      }
      const blind = isImage(res.attachment) ? visionError(model.value, models.value) : null
      if (blind) {
        errors.push(blind)
        continue
      }
      byKey[target] = [...current, res.attachment]
    }
    error.value = errors.length ? errors.join(' ') : null
  }

  function remove(i: number): void {
    byKey[key.value] = files.value.filter((_, j) => j !== i)
    error.value = null
  }

  /** Hands the files over for sending and empties the composer. */
  function take(): Attachment[] {
    const out = files.value
    delete byKey[key.value]
    error.value = null
    return out
  }

  return { files, error, add, remove, take }
}
