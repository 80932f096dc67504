// The draft of a question card: kept in the questions store by question_id
// (so it survives switching conversations and re-mounting), the shown step,
// and the edits the user makes to the shown question's answer.
import { computed, reactive, toValue, watch, type MaybeRefOrGetter } from 'vue'
import type { Question } from '../types'
import { useQuestionsStore } from '../stores/questions'
import { emptyDraft, validateQuestion, type CardDraft, type QuestionDraft } from '../lib/cards'

export function useCardDraft(opts: {
  questionId: MaybeRefOrGetter<string>
  questions: MaybeRefOrGetter<Question[]>
  /** The user can answer the card: only then is a draft made in the store. */
  editable: MaybeRefOrGetter<boolean>
}) {
  const store = useQuestionsStore()
  const questions = computed(() => toValue(opts.questions))
  const count = computed(() => questions.value.length)
  const multi = computed(() => count.value > 1)

  const fallback = reactive<CardDraft>(emptyDraft(0))
  watch(
    () => [toValue(opts.questionId), toValue(opts.editable), count.value] as const,
    ([id, editable, n]) => {
      if (editable) store.ensureDraft(id, n)
    },
    { immediate: true },
  )
  const draft = computed<CardDraft>(() => store.drafts[toValue(opts.questionId)] ?? fallback)
  /** The shown step; with several questions, `count` is the review. */
  const step = computed(() => Math.min(Math.max(draft.value.step, 0), multi.value ? count.value : 0))
  const onReview = computed(() => multi.value && step.value >= count.value)
  const current = computed<Question | undefined>(() => (onReview.value ? undefined : questions.value[step.value]))
  const currentDraft = computed<QuestionDraft>(() => draft.value.answers[step.value] ?? { selected: [], customOn: false, custom: '' })
  /** Per question: answered well enough to submit. */
  const answered = computed(() => questions.value.map((q, i) => !validateQuestion(q, draft.value.answers[i])))

  const isSelected = (label: string): boolean => currentDraft.value.selected.includes(label)

  /** Picks an option of the shown question (toggles it when several may be chosen). */
  function choose(label: string): void {
    const q = current.value
    const d = draft.value.answers[step.value]
    if (!q || !d) return
    if (q.multiSelect) {
      const i = d.selected.indexOf(label)
      if (i >= 0) d.selected.splice(i, 1)
      else d.selected.push(label)
    } else {
      d.selected = [label]
      d.customOn = false
    }
  }

  function setOther(on: boolean): void {
    const q = current.value
    const d = draft.value.answers[step.value]
    if (!q || !d) return
    d.customOn = on
    if (on && !q.multiSelect) d.selected = []
  }

  /** Typing in "Other" chooses it. */
  function setOtherText(text: string): void {
    const d = draft.value.answers[step.value]
    if (!d) return
    d.custom = text
    if (d.custom && !d.customOn) setOther(true)
  }

  function setOpenText(text: string): void {
    const d = draft.value.answers[step.value]
    if (!d) return
    d.custom = text
    d.customOn = true
  }

  return { count, multi, draft, step, onReview, current, currentDraft, answered, isSelected, choose, setOther, setOtherText, setOpenText }
}
