// Package gguf reads what the model library needs from a GGUF file (SPEC
// §12) without loading the model: the header, the metadata and the tensor
// table. Read refuses a file that is not a readable GGUF: a wrong magic,
// an unknown version, metadata that does not parse, or tensors whose data
// lies past the end of the file (a truncated file, such as a partial
// download). It uses the standard library only.
package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// Info is what Read found.
type Info struct {
	Version uint32
	// Architecture is general.architecture ("llama", "qwen3", "bert", …).
	Architecture string
	// Name is general.name ("" when the file has none).
	Name string
	// ChatTemplate is tokenizer.chat_template ("" when none).
	ChatTemplate string
	Tensors      int
	// Meta holds the scalar values (strings of at most MaxKeptString bytes,
	// numbers as uint64, int64 or float64, bools); arrays are skipped.
	Meta map[string]any
}

// Capabilities, as the model library names them.
const (
	CapTools     = "tools"
	CapThinking  = "thinking"
	CapVision    = "vision"
	CapEmbedding = "embedding"
)

// embeddingArchitectures are the architectures of embedding-only models.
var embeddingArchitectures = map[string]bool{
	"bert": true, "nomic-bert": true, "nomic-bert-moe": true, "jina-bert-v2": true,
	"jina-bert-v3": true, "t5encoder": true, "modern-bert": true, "neo-bert": true,
}

// Capabilities says what the model can do, from its metadata: tools (its
// chat template mentions tools), thinking (the template has think tags),
// vision (a vision encoder is described), embedding (an embedding
// architecture, or a pooling type).
func (i *Info) Capabilities() []string {
	caps := []string{}
	embedding := embeddingArchitectures[i.Architecture]
	if p, ok := i.Meta[i.Architecture+".pooling_type"]; ok && asUint(p) > 0 {
		embedding = true
	}
	if !embedding && i.ChatTemplate != "" {
		if strings.Contains(i.ChatTemplate, "tools") {
			caps = append(caps, CapTools)
		}
		if strings.Contains(i.ChatTemplate, "<think>") || strings.Contains(i.ChatTemplate, "</think>") {
			caps = append(caps, CapThinking)
		}
	}
	vision := false
	if v, ok := i.Meta["clip.has_vision_encoder"].(bool); ok && v {
		vision = true
	}
	for k := range i.Meta {
		if strings.HasPrefix(k, i.Architecture+".vision.") {
			vision = true
		}
	}
	if vision {
		caps = append(caps, CapVision)
	}
	if embedding {
		caps = append(caps, CapEmbedding)
	}
	return caps
}

func asUint(v any) uint64 {
	switch n := v.(type) {
	case uint64:
		return n
	case int64:
		if n > 0 {
			return uint64(n)
		}
	}
	return 0
}

// Limits that keep a hostile or broken file from making Read allocate
// much.
const (
	MaxKeptString = 1 << 20 // longer strings are skipped, not kept
	maxString     = 1 << 30
	maxKV         = 1 << 20
	maxTensors    = 1 << 24
	maxArray      = 1 << 32
)

// ErrNotGGUF is the cause of every refusal (errors.Is).
var ErrNotGGUF = errors.New("not a GGUF file")

type fail struct{ msg string }

func (f fail) Error() string { return f.msg }
func (f fail) Unwrap() error { return ErrNotGGUF }

func bad(format string, args ...any) error { return fail{fmt.Sprintf(format, args...)} }

// Read reads path's header, metadata and tensor table, and checks that
// the tensors' data fits in the file.
func Read(path string) (*Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, bad("%s is a folder", path)
	}
	cr := &countingReader{r: bufio.NewReaderSize(f, 1<<16)}
	info, err := parse(cr, uint64(st.Size()))
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, bad("the file ends inside its header (truncated?)")
		}
		return nil, err
	}
	return info, nil
}

type countingReader struct {
	r *bufio.Reader
	n uint64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += uint64(n)
	return n, err
}

func (c *countingReader) skip(n uint64) error {
	for n > 0 {
		step := int(min(n, 1<<30))
		d, err := c.r.Discard(step)
		c.n += uint64(d)
		if err != nil {
			return err
		}
		n -= uint64(d)
	}
	return nil
}

// Value types.
const (
	tUint8 = iota
	tInt8
	tUint16
	tInt16
	tUint32
	tInt32
	tFloat32
	tBool
	tString
	tArray
	tUint64
	tInt64
	tFloat64
)

var scalarSize = map[uint32]uint64{tUint8: 1, tInt8: 1, tUint16: 2, tInt16: 2, tUint32: 4, tInt32: 4, tFloat32: 4, tBool: 1, tUint64: 8, tInt64: 8, tFloat64: 8}

func parse(r *countingReader, size uint64) (*Info, error) {
	var magic [4]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil {
		return nil, bad("the file is too short to be a GGUF")
	}
	if string(magic[:]) != "GGUF" {
		return nil, bad("the file does not start with GGUF's magic")
	}
	var hdr struct {
		Version uint32
		Tensors uint64
		KV      uint64
	}
	if err := binary.Read(r, binary.LittleEndian, &hdr.Version); err != nil {
		return nil, err
	}
	if hdr.Version != 2 && hdr.Version != 3 {
		return nil, bad("GGUF version %d is not supported (2 or 3)", hdr.Version)
	}
	if err := binary.Read(r, binary.LittleEndian, &hdr.Tensors); err != nil {
		return nil, err
	}
	if err := binary.Read(r, binary.LittleEndian, &hdr.KV); err != nil {
		return nil, err
	}
	if hdr.Tensors > maxTensors || hdr.KV > maxKV {
		return nil, bad("implausible counts: %d tensors, %d metadata keys", hdr.Tensors, hdr.KV)
	}
	info := &Info{Version: hdr.Version, Tensors: int(hdr.Tensors), Meta: map[string]any{}}
	for i := uint64(0); i < hdr.KV; i++ {
		key, err := readString(r, true)
		if err != nil {
			return nil, err
		}
		var typ uint32
		if err := binary.Read(r, binary.LittleEndian, &typ); err != nil {
			return nil, err
		}
		v, err := readValue(r, typ)
		if err != nil {
			return nil, fmt.Errorf("metadata %q: %w", key, err)
		}
		if v != nil {
			info.Meta[key] = v
		}
	}
	info.Architecture, _ = info.Meta["general.architecture"].(string)
	info.Name, _ = info.Meta["general.name"].(string)
	info.ChatTemplate, _ = info.Meta["tokenizer.chat_template"].(string)
	if info.Architecture == "" {
		return nil, bad("the metadata has no general.architecture")
	}
	alignment := uint64(32)
	if a, ok := info.Meta["general.alignment"]; ok {
		alignment = asUint(a)
		if alignment == 0 || alignment&(alignment-1) != 0 {
			return nil, bad("general.alignment %v is not a power of two", a)
		}
	}

	// The tensor table: the end of the furthest tensor's data must be in
	// the file.
	var end uint64
	for i := uint64(0); i < hdr.Tensors; i++ {
		name, err := readString(r, true)
		if err != nil {
			return nil, err
		}
		var nDims uint32
		if err := binary.Read(r, binary.LittleEndian, &nDims); err != nil {
			return nil, err
		}
		if nDims == 0 || nDims > 8 {
			return nil, bad("tensor %q has %d dimensions", name, nDims)
		}
		elems := uint64(1)
		for d := uint32(0); d < nDims; d++ {
			var n uint64
			if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
				return nil, err
			}
			if n != 0 && elems > math.MaxUint64/n {
				return nil, bad("tensor %q is implausibly large", name)
			}
			elems *= n
		}
		var typ uint32
		var offset uint64
		if err := binary.Read(r, binary.LittleEndian, &typ); err != nil {
			return nil, err
		}
		if err := binary.Read(r, binary.LittleEndian, &offset); err != nil {
			return nil, err
		}
		if offset%alignment != 0 {
			return nil, bad("tensor %q is not aligned", name)
		}
		e := offset
		if bs, ok := blockSizes[typ]; ok {
			if elems%bs.elems != 0 {
				return nil, bad("tensor %q does not fill its blocks", name)
			}
			e += elems / bs.elems * bs.bytes
		}
		end = max(end, e)
	}
	dataStart := (r.n + alignment - 1) / alignment * alignment
	if hdr.Tensors > 0 && dataStart+end > size {
		return nil, bad("the file is shorter than its tensors need (%d of %d bytes: truncated?)", size, dataStart+end)
	}
	return info, nil
}

// blockSizes are the sizes of ggml's tensor types that Read checks: per
// block of elems values, bytes bytes. Other types are checked by their
// offset only.
var blockSizes = map[uint32]struct{ elems, bytes uint64 }{
	0:  {1, 4},     // F32
	1:  {1, 2},     // F16
	2:  {32, 18},   // Q4_0
	3:  {32, 20},   // Q4_1
	6:  {32, 22},   // Q5_0
	7:  {32, 24},   // Q5_1
	8:  {32, 34},   // Q8_0
	10: {256, 84},  // Q2_K
	11: {256, 110}, // Q3_K
	12: {256, 144}, // Q4_K
	13: {256, 176}, // Q5_K
	14: {256, 210}, // Q6_K
	15: {256, 292}, // Q8_K
	20: {32, 18},   // IQ4_NL
	23: {256, 136}, // IQ4_XS
	24: {1, 1},     // I8
	25: {1, 2},     // I16
	26: {1, 4},     // I32
	27: {1, 8},     // I64
	28: {1, 8},     // F64
	30: {1, 2},     // BF16
}

func readString(r *countingReader, keep bool) (string, error) {
	var n uint64
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return "", err
	}
	if n > maxString {
		return "", bad("a string of %d bytes", n)
	}
	if !keep || n > MaxKeptString {
		return "", r.skip(n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return string(b), nil
}

// readValue reads one value; arrays are skipped (nil).
func readValue(r *countingReader, typ uint32) (any, error) {
	switch typ {
	case tString:
		return readString(r, true)
	case tArray:
		var et uint32
		var n uint64
		if err := binary.Read(r, binary.LittleEndian, &et); err != nil {
			return nil, err
		}
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
			return nil, err
		}
		if n > maxArray {
			return nil, bad("an array of %d values", n)
		}
		if sz, ok := scalarSize[et]; ok {
			return nil, r.skip(n * sz)
		}
		switch et {
		case tString:
			for j := uint64(0); j < n; j++ {
				if _, err := readString(r, false); err != nil {
					return nil, err
				}
			}
			return nil, nil
		case tArray:
			for j := uint64(0); j < n; j++ {
				if _, err := readValue(r, tArray); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}
		return nil, bad("an array of unknown type %d", et)
	}
	sz, ok := scalarSize[typ]
	if !ok {
		return nil, bad("unknown value type %d", typ)
	}
	var b [8]byte
	if _, err := io.ReadFull(r, b[:sz]); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	switch typ {
	case tUint8:
		return uint64(b[0]), nil
	case tInt8:
		return int64(int8(b[0])), nil
	case tUint16:
		return uint64(le.Uint16(b[:])), nil
	case tInt16:
		return int64(int16(le.Uint16(b[:]))), nil
	case tUint32:
		return uint64(le.Uint32(b[:])), nil
	case tInt32:
		return int64(int32(le.Uint32(b[:]))), nil
	case tFloat32:
		return float64(math.Float32frombits(le.Uint32(b[:]))), nil
	case tBool:
		return b[0] != 0, nil
	case tUint64:
		return le.Uint64(b[:]), nil
	case tInt64:
		return int64(le.Uint64(b[:])), nil
	default: // tFloat64
		return math.Float64frombits(le.Uint64(b[:])), nil
	}
}
