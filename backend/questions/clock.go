package questions

import "time"

// realClock is the wall clock; time.AfterFunc already runs f in its own
// goroutine and *time.Timer satisfies Timer.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
