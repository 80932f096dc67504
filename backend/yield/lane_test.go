package yield

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLaneRunsAndClosesTwice(t *testing.T) {
	l := NewLane(nil)
	ran := false
	l.Run(func() { ran = true })
	assert.True(t, ran)
	l.Close()
	assert.NotPanics(t, l.Close, "a service closed by its owner and again by a cleanup")
}
