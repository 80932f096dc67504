package questions

// Fixed tool-result texts the model receives (SPEC §1 "Result").
const (
	// CancelledResult is the result when the user cancels; the run stops.
	CancelledResult = "User cancelled the question"
	// SubAgentRefusal is the result when a sub-agent calls the tool anyway.
	SubAgentRefusal = "ask_user_question is not available to sub-agents"
	// DeclinedResult is the result when the user skips the card.
	DeclinedResult = "The user declined to answer the question. Proceed without the answers, using your best judgement, and do not ask the same question again."
	// TimedOutResult is the result when nobody answered in time. The card
	// stays answerable; a late answer arrives later as a new user turn.
	TimedOutResult = "The question timed out without an answer from the user. Proceed with reasonable assumptions and state them clearly in your reply; the user may still answer later."
	// TimeoutResult is the former name of TimedOutResult.
	//
	// Deprecated: use TimedOutResult.
	TimeoutResult = TimedOutResult
)

// OutcomeFor derives what the asking run receives from a card's state. A card
// that timed out keeps giving the timeout outcome after it was answered late
// or superseded: the late answer goes to a new run, not to the old one. It is
// also how a run continued after a crash gets the answer that was stored
// before its tool result was.
func OutcomeFor(c *Card) Outcome {
	if c.Kind == KindApproval || c.Kind == KindElicitation {
		return outcomeForKind(c)
	}
	switch c.Status {
	case StatusAnswered:
		return Outcome{Status: StatusAnswered, Result: SubmitResult(c.Answers, c.Comments)}
	case StatusDeclined:
		return Outcome{Status: StatusDeclined, Result: DeclinedResult}
	case StatusCancelled:
		return Outcome{Status: StatusCancelled, Result: CancelledResult, StopRun: true}
	case StatusTimedOut, StatusAnsweredLate, StatusSuperseded:
		return Outcome{Status: StatusTimedOut, Result: TimedOutResult}
	default:
		return Outcome{Status: c.Status}
	}
}
