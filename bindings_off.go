//go:build !bindings

package main

// generatingBindings: see bindings_on.go.
const generatingBindings = false
