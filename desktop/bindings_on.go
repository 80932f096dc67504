//go:build bindings

package desktop

// generatingBindings is true in the binary `wails build` compiles (with the
// `bindings` tag) and runs only to write frontend/wailsjs.
const generatingBindings = true
