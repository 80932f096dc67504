package questions

import (
	"testing"

	"go.uber.org/goleak"
)

// Every timer, waiter and callback must be gone when the tests end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
