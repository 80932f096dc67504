package assistant

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A reply whose last thinking and whole answer were read in one burst (a
// busy machine) still says it answered: its figures show "answered in",
// never nothing (seen as a flaky thinking e2e under two CPU hogs).
func TestAnswerMillisOfAReplyThatThought(t *testing.T) {
	end := time.Now()
	assert.Equal(t, int64(0), (&replyClock{}).answerMillis(end), "no thinking: no answer time")
	assert.Equal(t, int64(1), (&replyClock{lastThought: end}).answerMillis(end), "answer read with the thinking")
	assert.Equal(t, int64(1), (&replyClock{lastThought: end.Add(-300 * time.Microsecond)}).answerMillis(end))
	assert.Equal(t, int64(250), (&replyClock{lastThought: end.Add(-250 * time.Millisecond)}).answerMillis(end))
}
