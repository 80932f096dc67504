package api

// Knowledge wire types (SPEC §11). The domain logic is in backend/knowledge.

// Collection statuses.
const (
	KnowledgeIndexing = "indexing"
	KnowledgeReady    = "ready"
	KnowledgeError    = "error"
)

// KnowledgeFileError is a file that could not be indexed, with the reason.
type KnowledgeFileError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Collection is a named set of files and folders indexed for the assistant
// (GET /api/v1/knowledge/{id}).
type Collection struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Paths        []string `json:"paths"`
	Status       string   `json:"status"`
	Files        int      `json:"files"`
	IndexedFiles int      `json:"indexed_files"`
	Chunks       int      `json:"chunks"`
	// EmbeddingModel made the collection's vectors (null: keyword search only).
	EmbeddingModel *string `json:"embedding_model"`
	// EmbeddedChunks counts the passages that have a vector of that model.
	EmbeddedChunks int                  `json:"embedded_chunks"`
	Errors         []KnowledgeFileError `json:"errors"`
	// Cancelled: the user stopped indexing; reindex starts it again.
	Cancelled bool `json:"cancelled"`
	// Error says why the collection could not be indexed (a path that is gone).
	Error string `json:"error,omitempty"`
	// EmbeddingError says why vectors could not be made (the model server
	// is down, the model is not an embedding model): keyword search still works.
	EmbeddingError string `json:"embedding_error,omitempty"`
	CreatedAt      string `json:"created_at"`
}

// CollectionRequest is the body of POST /api/v1/knowledge and PATCH
// /api/v1/knowledge/{id} (absent fields unchanged).
type CollectionRequest struct {
	Name  *string  `json:"name,omitempty"`
	Paths []string `json:"paths,omitempty"`
}

// KnowledgeSearchRequest is the body of POST /api/v1/knowledge/{id}/search.
type KnowledgeSearchRequest struct {
	Query string `json:"query"`
	TopK  int    `json:"top_k,omitempty"`
}

// KnowledgeResult is one passage found, best first.
type KnowledgeResult struct {
	Path    string  `json:"path"`
	Locator string  `json:"locator"`
	Text    string  `json:"text"`
	Score   float64 `json:"score"`
}

// KnowledgeSearchResponse answers a search.
type KnowledgeSearchResponse struct {
	Results []KnowledgeResult `json:"results"`
}

// KnowledgeProgress is the knowledge:progress event.
type KnowledgeProgress struct {
	ID           string `json:"id"`
	IndexedFiles int    `json:"indexed_files"`
	Files        int    `json:"files"`
	Chunks       int    `json:"chunks"`
	Status       string `json:"status"`
}

// Knowledge limits.
const (
	DefaultTopK          = 8
	MaxTopK              = 50
	MaxCollectionName    = 80
	MaxCollectionPaths   = 100
	MaxKnowledgeQueryLen = 2000
)
