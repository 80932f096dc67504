package api

// Projects and the full backup (SPEC §14).

// Project limits.
const (
	// MaxProjectName bounds a project's name (in characters).
	MaxProjectName = 80
	// MaxProjectInstructions bounds a project's instructions (in
	// characters), as a profile's system prompt is bounded.
	MaxProjectInstructions = 20000
	// MaxBackupBytes bounds an imported full backup. The whole file is read
	// into memory to be checked before anything is stored, so the bound
	// also bounds the memory an import takes.
	MaxBackupBytes = 256 << 20
)

// ProjectRequest creates a project (name required) or changes the fields
// it gives. Profile and model "" mean none.
type ProjectRequest struct {
	Name         *string   `json:"name,omitempty"`
	Instructions *string   `json:"instructions,omitempty"`
	Knowledge    *[]string `json:"knowledge,omitempty"`
	Profile      *string   `json:"profile,omitempty"`
	Model        *string   `json:"model,omitempty"`
}

// BackupImported says what a full backup's import added and what it left
// because it was here already, by section ("projects", "conversations").
type BackupImported struct {
	Added   map[string]int `json:"added"`
	Skipped map[string]int `json:"skipped"`
}
