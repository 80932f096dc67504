package library

import (
	_ "embed"
	"encoding/json"
	"strings"
)

// CatalogEntry is a model of the curated catalogue (GET
// /api/v1/engine/catalog).
type CatalogEntry struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Repo     string `json:"repo"`
	File     string `json:"file"`
	Revision string `json:"revision,omitempty"`
	// Size is the file's size and RAM the memory the model needs, in
	// bytes: rounded figures from the hub's listings and model cards, not
	// checked here (a download checks the real size and sha256).
	Size         int64    `json:"size"`
	RAM          int64    `json:"ram"`
	Capabilities []string `json:"capabilities"`
	Description  string   `json:"description"`
	// Installed: a model downloaded from this repository's file is in the
	// library (Model is its id).
	Installed bool   `json:"installed"`
	Model     string `json:"model,omitempty"`
}

//go:embed catalog.json
var catalogJSON []byte

// Catalog is the built-in catalogue (catalog.json).
func Catalog() []CatalogEntry {
	var c struct {
		Models []CatalogEntry `json:"models"`
	}
	if err := json.Unmarshal(catalogJSON, &c); err != nil {
		panic("library: catalog.json: " + err.Error())
	}
	return c.Models
}

// Catalog is the catalogue, each entry saying whether it is installed.
func (l *Library) Catalog() []CatalogEntry {
	models := l.Models()
	out := make([]CatalogEntry, len(l.opt.Catalog))
	for i, e := range l.opt.Catalog {
		e.Capabilities = append([]string{}, e.Capabilities...)
		if m, ok := installedFrom(models, e.Repo, e.File); ok {
			e.Installed, e.Model = true, m.ID
		}
		out[i] = e
	}
	return out
}

// catalogEntry finds a catalogue entry by id.
func (l *Library) catalogEntry(id string) (CatalogEntry, bool) {
	for _, e := range l.opt.Catalog {
		if strings.EqualFold(e.ID, id) {
			return e, true
		}
	}
	return CatalogEntry{}, false
}

// catalogEntryFor finds the catalogue entry a model was downloaded from.
func (l *Library) catalogEntryFor(src Source) (CatalogEntry, bool) {
	if src.Repo == "" {
		return CatalogEntry{}, false
	}
	for _, e := range l.opt.Catalog {
		if strings.EqualFold(e.Repo, src.Repo) && e.File == src.File {
			return e, true
		}
	}
	return CatalogEntry{}, false
}
