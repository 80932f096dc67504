package gguf_test

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/engine/gguf"
	"github.com/parley-app/parley/backend/engine/ggufgen"
)

func TestReadsAGeneratedModel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.gguf")
	require.NoError(t, ggufgen.Write(p, ggufgen.Spec{Name: "Tiny", Answer: "Hi."}))
	info, err := gguf.Read(p)
	require.NoError(t, err)
	assert.Equal(t, uint32(3), info.Version)
	assert.Equal(t, "llama", info.Architecture)
	assert.Equal(t, "Tiny", info.Name)
	assert.Equal(t, 12, info.Tensors)
	assert.Equal(t, ggufgen.ChatML, info.ChatTemplate)
	assert.Equal(t, uint64(16384), info.Meta["llama.context_length"])
	assert.Equal(t, []string{gguf.CapTools}, info.Capabilities(), "ChatML with tools, no think tags")
}

func TestThinkTagsMakeAThinkingModel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.gguf")
	tmpl := "{% for m in messages %}{{ m.content }}{% endfor %}<think>\n"
	require.NoError(t, ggufgen.Write(p, ggufgen.Spec{Template: tmpl, Answer: "Hi."}))
	info, err := gguf.Read(p)
	require.NoError(t, err)
	assert.Equal(t, []string{gguf.CapThinking}, info.Capabilities())
}

func TestRefusesWhatIsNotAReadableGGUF(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.gguf")
	require.NoError(t, ggufgen.Write(good, ggufgen.Spec{Answer: "Hello there."}))
	whole, err := os.ReadFile(good)
	require.NoError(t, err)

	cases := map[string][]byte{
		"text":              []byte("this is not a model at all, just some text"),
		"empty":             nil,
		"truncated data":    whole[:len(whole)-64],
		"truncated header":  whole[:200],
		"version 1":         append([]byte("GGUF\x01\x00\x00\x00"), whole[8:]...),
		"huge string":       header(3, 0, 1, func(b *bytes.Buffer) { str(b, "general.architecture"); u32(b, 8); u64(b, 1<<40) }),
		"unknown type":      header(3, 0, 1, func(b *bytes.Buffer) { str(b, "x"); u32(b, 99) }),
		"no architecture":   header(3, 0, 1, func(b *bytes.Buffer) { str(b, "general.name"); u32(b, 8); str(b, "n") }),
		"implausible count": header(3, 1<<40, 0, nil),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
			require.NoError(t, os.WriteFile(p, content, 0o600))
			_, err := gguf.Read(p)
			require.Error(t, err)
			assert.ErrorIs(t, err, gguf.ErrNotGGUF)
		})
	}

	_, err = gguf.Read(filepath.Join(dir, "missing.gguf"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "a missing file is said as such")
	assert.NotErrorIs(t, err, gguf.ErrNotGGUF)
}

func TestEmbeddingAndVisionFromTheMetadata(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, kv func(b *bytes.Buffer), n uint64) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, header(3, 0, n, kv), 0o600))
		return p
	}
	bert := write("bert.gguf", func(b *bytes.Buffer) {
		str(b, "general.architecture")
		u32(b, 8)
		str(b, "nomic-bert")
		str(b, "nomic-bert.pooling_type")
		u32(b, 4)
		u32(b, 1)
	}, 2)
	info, err := gguf.Read(bert)
	require.NoError(t, err)
	assert.Equal(t, []string{gguf.CapEmbedding}, info.Capabilities())

	pooled := write("qwen3-embed.gguf", func(b *bytes.Buffer) {
		str(b, "general.architecture")
		u32(b, 8)
		str(b, "qwen3")
		str(b, "qwen3.pooling_type")
		u32(b, 4)
		u32(b, 3)
		str(b, "tokenizer.chat_template")
		u32(b, 8)
		str(b, "{% if tools %}<think>{% endif %}")
		// An array of strings is skipped.
		str(b, "tokenizer.ggml.tokens")
		u32(b, 9)
		u32(b, 8)
		u64(b, 2)
		str(b, "a")
		str(b, "b")
	}, 4)
	info, err = gguf.Read(pooled)
	require.NoError(t, err)
	assert.Equal(t, []string{gguf.CapEmbedding}, info.Capabilities(), "a pooling type makes an embedding model, whatever the template says")

	vision := write("vision.gguf", func(b *bytes.Buffer) {
		str(b, "general.architecture")
		u32(b, 8)
		str(b, "gemma3")
		str(b, "gemma3.vision.image_size")
		u32(b, 4)
		u32(b, 896)
	}, 2)
	info, err = gguf.Read(vision)
	require.NoError(t, err)
	assert.Equal(t, []string{gguf.CapVision}, info.Capabilities())
}

func header(version uint32, tensors, kvs uint64, kv func(*bytes.Buffer)) []byte {
	var b bytes.Buffer
	b.WriteString("GGUF")
	u32(&b, version)
	u64(&b, tensors)
	u64(&b, kvs)
	if kv != nil {
		kv(&b)
	}
	return b.Bytes()
}

func u32(b *bytes.Buffer, v uint32) { _ = binary.Write(b, binary.LittleEndian, v) }
func u64(b *bytes.Buffer, v uint64) { _ = binary.Write(b, binary.LittleEndian, v) }
func str(b *bytes.Buffer, s string) { u64(b, uint64(len(s))); b.WriteString(s) }
