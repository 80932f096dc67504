package desktop

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLimitWebviewHeap(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	set := func(k, v string) error { env[k] = v; return nil }

	limitWebviewHeap("darwin", get, set)
	assert.Empty(t, env, "only WebKitGTK's web process reads it")

	limitWebviewHeap("linux", get, set)
	assert.Equal(t, map[string]string{"JSC_forceRAMSize": "536870912"}, env)

	env["JSC_forceRAMSize"] = "1073741824"
	limitWebviewHeap("linux", get, set)
	assert.Equal(t, "1073741824", env["JSC_forceRAMSize"], "what the user set wins")
}
