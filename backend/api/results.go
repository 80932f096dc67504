package api

// The small answers of calls that change something and have nothing else
// to say; each is the HTTP API's body for it (SPEC §4).

// Deleted answers a deletion.
type Deleted struct {
	Deleted bool `json:"deleted"`
}

// OK answers a cancel.
type OK struct {
	OK bool `json:"ok"`
}

// Reset answers a reset of the model statistics.
type Reset struct {
	Reset bool `json:"reset"`
}

// Reindexing answers a collection's reindex: it has started.
type Reindexing struct {
	Reindexing bool `json:"reindexing"`
}

// PullDone answers a finished model pull ("success").
type PullDone struct {
	Status string `json:"status"`
}

// ExportedFile is a file the user saves: an exported conversation. Over HTTP it is
// sent as the file itself (its type and name in the headers).
type ExportedFile struct {
	Name     string `json:"name"`
	MimeType string `json:"mime_type"`
	Content  string `json:"content"`
}
