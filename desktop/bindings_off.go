//go:build !bindings

package desktop

// generatingBindings: see bindings_on.go.
const generatingBindings = false
