package crash

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/parley-app/parley/backend/modelserver"
)

// ---------------------------------------------------------------------------
// The scripted model.

// Turn kinds; the user message carries its kind as a tag, so the script
// answers the same way after a restart or a retry.
const (
	kindPlain     = "plain"    // a long reply in many small deltas
	kindCard      = "card"     // some text and one ask_user_question call
	kindTwo       = "two"      // ask_user_question and calculator in one message
	kindTwoCards  = "twocards" // two ask_user_question calls in one message
	colourCard    = `{"questions":[{"question":"Which colour?","header":"Colour","options":["Red","Blue","Green"]}]}`
	sizeCard      = `{"questions":[{"question":"Which size?","header":"Size","options":[{"label":"S"},{"label":"M"},{"label":"L"}]},{"question":"Anything else?","options":[]}]}`
	calculatorArg = `{"expression":"(6*7)+sqrt(16)"}`
)

// callSeq makes tool-call ids unique across the whole test, so a card asked
// again for the same (saved) tool call is recognisable by its tool_call_id.
var callSeq atomic.Int64

func nextCallID() string { return fmt.Sprintf("call_crash_%d", callSeq.Add(1)) }

// prose is n words of text, streamed by the model server one word per delta.
func prose(lead string, n, salt int) string {
	words := []string{"parley", "keeps", "every", "word", "it", "shows", "**safe**", "on", "disk", "before", "the", "user", "sees", "it,", "even", "when", "killed"}
	var b strings.Builder
	b.WriteString(lead)
	for i := 0; i < n; i++ {
		b.WriteByte(' ')
		b.WriteString(words[(i*7+salt)%len(words)])
		if i%23 == 22 {
			b.WriteString(".\n\n-")
		}
	}
	b.WriteByte('.')
	return b.String()
}

func crashScript() modelserver.Script {
	return func(req modelserver.ChatRequest) modelserver.Turn {
		n := len(req.Messages)
		delay := time.Duration(2+n%9) * time.Millisecond
		last := req.LastMessage()
		if last.Role == "tool" {
			return modelserver.Turn{Text: prose("Thanks, that settles it:", 50+n%40, n), FirstTokenDelay: delay}
		}
		ask := func(args string) modelserver.ToolCall {
			return modelserver.ToolCall{ID: nextCallID(), Name: "ask_user_question", Arguments: args}
		}
		switch {
		case last.Role == "user" && strings.Contains(last.Content, "["+kindTwoCards+"]"):
			return modelserver.Turn{Text: prose("Two quick questions first.", 20, n), FirstTokenDelay: delay,
				ToolCalls: []modelserver.ToolCall{ask(colourCard), ask(sizeCard)}}
		case last.Role == "user" && strings.Contains(last.Content, "["+kindTwo+"]"):
			return modelserver.Turn{Text: prose("Let me ask and compute.", 25, n), FirstTokenDelay: delay,
				ToolCalls: []modelserver.ToolCall{ask(colourCard), {ID: nextCallID(), Name: "calculator", Arguments: calculatorArg}}}
		case last.Role == "user" && strings.Contains(last.Content, "["+kindCard+"]"):
			return modelserver.Turn{Text: prose("Before I start, one question.", 30, n), FirstTokenDelay: delay,
				ToolCalls: []modelserver.ToolCall{ask(colourCard)}}
		}
		return modelserver.Turn{Text: prose("Here is a long answer:", 120+n%60, n), FirstTokenDelay: delay}
	}
}
