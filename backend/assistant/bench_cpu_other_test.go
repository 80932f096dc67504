//go:build !unix

package assistant

import "time"

// processCPU is not measured here (the benchmark reports 0).
func processCPU() time.Duration { return 0 }
