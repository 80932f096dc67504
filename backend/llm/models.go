package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
)

// ServerModels is what a model server offers.
type ServerModels struct {
	// Ollama is true when the server has Ollama's native API: then each
	// model's SupportsTools is known, and models can be pulled.
	Ollama bool
	Models []ModelInfo
}

// ListModels lists the models of the server whose OpenAI-compatible
// endpoint is baseURL: through Ollama's native API when the server has it
// (which also tells which models support tools), else through the
// OpenAI-compatible GET <baseURL>/models (llama.cpp's server, LM Studio,
// vLLM), which does not say.
func ListModels(ctx context.Context, baseURL, apiKey string) (ServerModels, error) {
	o := NewOllama(baseURL)
	models, native, err := o.nativeModels(ctx)
	if err != nil {
		return ServerModels{}, err
	}
	if native {
		return ServerModels{Ollama: true, Models: models}, nil
	}
	models, err = openAIModels(ctx, o.client, o.base, apiKey)
	if err != nil {
		return ServerModels{}, err
	}
	return ServerModels{Models: models}, nil
}

// nativeModels lists the models through Ollama's /api/tags; native is
// false when the server does not have that API (any answer without a
// "models" list: a 404, LM Studio's 200 with an error, an HTML page), or
// only imitates its list (llama.cpp's server answers /api/tags with its
// OpenAI model list, "data" included, and has no /api/show or /api/pull).
func (o *Ollama) nativeModels(ctx context.Context) (models []ModelInfo, native bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.root+"/api/tags", nil)
	if err != nil {
		return nil, false, fmt.Errorf("list models: %w", err)
	}
	res, err := o.client.Do(req)
	if err != nil {
		return nil, false, o.transportError(ctx, err)
	}
	defer res.Body.Close()
	var tags struct {
		Models *[]struct {
			Name string `json:"name"`
			Size int64  `json:"size"`
		} `json:"models"`
		Data json.RawMessage `json:"data"`
	}
	if res.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(res.Body, 8<<20)).Decode(&tags) != nil || tags.Models == nil || tags.Data != nil {
		return nil, false, nil
	}
	out := make([]ModelInfo, 0, len(*tags.Models))
	for _, m := range *tags.Models {
		info := ModelInfo{Name: m.Name, Size: m.Size}
		// A model /api/show cannot describe is listed as without tools.
		d, _ := o.Details(ctx, m.Name)
		info.SupportsTools = slices.Contains(d.Capabilities, "tools")
		info.SupportsVision = slices.Contains(d.Capabilities, "vision")
		info.SupportsThinking = slices.Contains(d.Capabilities, "thinking")
		out = append(out, info)
	}
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// openAIModels lists the models through OpenAI's GET /models.
func openAIModels(ctx context.Context, client *http.Client, baseURL, apiKey string) ([]ModelInfo, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/models", nil)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+tokenOrNone(apiKey))
	res, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, unreachableError(baseURL, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 8<<20))
	if err != nil {
		return nil, NewError(KindStream, err, "llm.listStopped", baseURL)
	}
	if res.StatusCode != http.StatusOK {
		msg := serverMessage(body)
		detail := fmt.Sprintf("HTTP %d", res.StatusCode)
		if msg != "" {
			detail += ": " + msg
		}
		switch res.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return nil, NewError(KindHTTP, nil, "llm.listRefused", baseURL, detail)
		case http.StatusNotFound:
			return nil, NewError(KindHTTP, nil, "llm.listNotFound", baseURL, detail)
		}
		return nil, NewError(KindHTTP, nil, "llm.listFailed", baseURL, detail)
	}
	var list struct {
		Data *[]struct {
			ID           string   `json:"id"`
			Capabilities []string `json:"capabilities"`
		} `json:"data"`
		// llama.cpp adds an Ollama-style list with capabilities.
		Models []struct {
			Model        string   `json:"model"`
			Capabilities []string `json:"capabilities"`
		} `json:"models"`
	}
	if err := json.Unmarshal(body, &list); err != nil || list.Data == nil {
		return nil, NewError(KindHTTP, err, "llm.notOpenAI", baseURL)
	}
	// No vision unless the listing says so.
	sees := func(caps []string) bool {
		return slices.Contains(caps, "vision") || slices.Contains(caps, "multimodal")
	}
	vision := map[string]bool{}
	for _, m := range list.Models {
		vision[m.Model] = sees(m.Capabilities)
	}
	out := make([]ModelInfo, 0, len(*list.Data))
	for _, m := range *list.Data {
		if m.ID != "" {
			out = append(out, ModelInfo{Name: m.ID, SupportsVision: sees(m.Capabilities) || vision[m.ID]})
		}
	}
	return out, nil
}
