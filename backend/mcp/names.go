package mcp

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// MaxModelName is the longest tool name the model sees (OpenAI's limit).
const MaxModelName = 64

// sanitize makes a tool name the model accepts: characters outside
// [A-Za-z0-9_-] become "_", cut to MaxModelName.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if len(out) > MaxModelName {
		out = out[:MaxModelName]
	}
	return out
}

// ModelName is the name the model sees for a server's tool before
// collisions are resolved: <server>__<tool>, sanitized and cut to 64.
func ModelName(server, tool string) string { return sanitize(server + "__" + tool) }

// toolKey names one tool of one server.
type toolKey struct{ server, tool string }

// assignModelNames gives every tool a unique model name. Tools whose names
// collide after sanitizing are ordered by server then tool name (bytewise);
// the first keeps the name, the next get "_2", "_3"... (cutting the base so
// the name stays within 64). The result depends only on the set of tools,
// not on the order they were listed in.
func assignModelNames(keys []toolKey) map[toolKey]string {
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, func(a, b toolKey) int {
		return cmp.Or(cmp.Compare(a.server, b.server), cmp.Compare(a.tool, b.tool))
	})
	sorted = slices.Compact(sorted)
	out := make(map[toolKey]string, len(sorted))
	taken := make(map[string]bool, len(sorted))
	// Plain names first, so a suffixed name never takes a name that is
	// some other tool's own.
	byBase := map[string][]toolKey{}
	var bases []string
	for _, k := range sorted {
		base := ModelName(k.server, k.tool)
		if _, ok := byBase[base]; !ok {
			bases = append(bases, base)
		}
		byBase[base] = append(byBase[base], k)
	}
	for _, base := range bases {
		out[byBase[base][0]] = base
		taken[base] = true
	}
	for _, base := range bases {
		for _, k := range byBase[base][1:] {
			for n := 2; ; n++ {
				suffix := "_" + strconv.Itoa(n)
				name := base
				if len(name)+len(suffix) > MaxModelName {
					name = name[:MaxModelName-len(suffix)]
				}
				name += suffix
				if !taken[name] {
					taken[name] = true
					out[k] = name
					break
				}
			}
		}
	}
	return out
}
