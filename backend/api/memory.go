package api

// MemoryRequest is a memory the user types.
type MemoryRequest struct {
	Text string `json:"text"`
	// ProjectID scopes it to one project's conversations; absent = every
	// conversation.
	ProjectID *string `json:"project_id,omitempty"`
}

// MemoryUpdate changes what it gives of a memory.
type MemoryUpdate struct {
	Text       *string `json:"text,omitempty"`
	AutoAnswer *bool   `json:"auto_answer,omitempty"`
}
