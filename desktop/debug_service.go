package desktop

import "github.com/parley-app/parley/backend/trace"

// DebugService is window.go.desktop.DebugService: the page's side of the card
// trace (backend/trace), used only while PARLEY_TRACE=1.
type DebugService struct{}

// ReportTrace records the page's marks of the card trace; an error while
// tracing is off.
func (DebugService) ReportTrace(marks []trace.PageMark) error { return trace.Report(marks) }
