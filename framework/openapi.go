package framework

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// Schema is one JSON Schema object of the OpenAPI 3.1 dialect (JSON Schema
// 2020-12), keyword to value, exactly as it is written into the document.
type Schema map[string]any

// OpenAPIInfo is what an OpenAPI document needs beyond the declarations of
// the registered actions, which the framework reads on its own.
type OpenAPIInfo struct {
	// Title and Version fill the document's info object; empty means "API"
	// and "0".
	Title, Version string
	// Description describes the whole API (CommonMark).
	Description string
	// Errors lists the codes that middleware outside the framework may
	// answer any action with, such as TOO_MANY_REQUESTS from a rate limiter.
	Errors []errorcodes.Code
	// Rules documents the named validation rules of Config.Rules: the
	// keywords are merged into the schema of every argument validated by
	// the rule, such as {"format": "password", "minLength": 12}. A rule
	// without an entry is documented by its name only.
	Rules map[string]Schema
	// Routes documents plain handlers mounted with Handle, which declare no
	// arguments or results the framework could read.
	Routes []RouteDoc
	// ErrorDetails documents the members some codes add to the error body
	// (errorcodes.Error.Details): for each such code, a value of the struct
	// its answers carry. Every error answer is documented as closed, so an
	// answer carrying members not documented here fails a check against
	// the document.
	ErrorDetails map[errorcodes.Code]any
}

// RouteDoc documents a plain handler mounted with Handle.
type RouteDoc struct {
	// Path is the handler's path; it must have been mounted with Handle.
	Path string
	// Methods are the methods documented, such as GET and HEAD.
	Methods []string
	// Summary and Description describe the route.
	Summary, Description string
	// Tags group the route in the document.
	Tags []string
	// Responses maps each HTTP status to its answer.
	Responses map[int]ResponseDoc
}

// ResponseDoc documents one answer of a plain route: an error body carrying
// one of Codes when Codes is set, else a body of ContentType described by
// Schema (no body when Schema is nil).
type ResponseDoc struct {
	// Description says when the answer is given (ignored with Codes, whose
	// messages describe them).
	Description string
	// ContentType is the body's media type; empty means application/json.
	ContentType string
	// Schema describes the body; nil means no body.
	Schema Schema
	// Codes, when set, makes the answer an error body carrying one of them;
	// they must all have the status the answer is documented under.
	Codes []errorcodes.Code
}

// The parts of the document, in the order OpenAPI readers expect.
type (
	oaDocument struct {
		OpenAPI    string                            `json:"openapi"`
		Info       oaInfo                            `json:"info"`
		Tags       []oaTag                           `json:"tags,omitempty"`
		Paths      map[string]map[string]oaOperation `json:"paths"`
		Components oaComponents                      `json:"components"`
	}
	oaInfo struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Description string `json:"description,omitempty"`
	}
	oaTag struct {
		Name string `json:"name"`
	}
	oaOperation struct {
		OperationID string                 `json:"operationId"`
		Summary     string                 `json:"summary,omitempty"`
		Description string                 `json:"description,omitempty"`
		Tags        []string               `json:"tags,omitempty"`
		Parameters  []oaParameter          `json:"parameters,omitempty"`
		RequestBody *oaRequestBody         `json:"requestBody,omitempty"`
		Responses   map[string]oaResponse  `json:"responses"`
		Security    *[]map[string][]string `json:"security,omitempty"`
		// Reauth names the action's Spec.Reauth requirement, if any.
		Reauth string `json:"x-reauthentication,omitempty"`
	}
	oaParameter struct {
		Ref         string `json:"$ref,omitempty"`
		Name        string `json:"name,omitempty"`
		In          string `json:"in,omitempty"`
		Description string `json:"description,omitempty"`
		Required    bool   `json:"required,omitempty"`
		Schema      Schema `json:"schema,omitempty"`
	}
	oaRequestBody struct {
		Description string             `json:"description,omitempty"`
		Content     map[string]oaMedia `json:"content"`
	}
	oaMedia struct {
		Schema Schema `json:"schema,omitempty"`
	}
	oaResponse struct {
		Ref         string             `json:"$ref,omitempty"`
		Description string             `json:"description,omitempty"`
		Headers     map[string]Schema  `json:"headers,omitempty"`
		Content     map[string]oaMedia `json:"content,omitempty"`
	}
	oaSecurityScheme struct {
		Type         string   `json:"type"`
		Scheme       string   `json:"scheme,omitempty"`
		BearerFormat string   `json:"bearerFormat,omitempty"`
		In           string   `json:"in,omitempty"`
		Name         string   `json:"name,omitempty"`
		Description  string   `json:"description"`
		Flows        *oaFlows `json:"flows,omitempty"`
	}
	oaFlows struct {
		AuthorizationCode *oaFlow `json:"authorizationCode,omitempty"`
	}
	oaFlow struct {
		AuthorizationURL string            `json:"authorizationUrl"`
		TokenURL         string            `json:"tokenUrl"`
		Scopes           map[string]string `json:"scopes"`
	}
	oaComponents struct {
		Schemas         map[string]Schema           `json:"schemas,omitempty"`
		Responses       map[string]oaResponse       `json:"responses,omitempty"`
		Parameters      map[string]oaParameter      `json:"parameters,omitempty"`
		Headers         map[string]Schema           `json:"headers,omitempty"`
		SecuritySchemes map[string]oaSecurityScheme `json:"securitySchemes,omitempty"`
	}
)

// OpenAPI returns an OpenAPI 3.1 document, as JSON, describing every action
// registered so far and the plain routes listed in info.Routes.
//
// Everything about an action comes from its Descriptor and the framework's
// own rules: one path per action with an operation for each of Methods;
// operationId is the wire name for POST and the wire name plus "_" and the
// lowercase method otherwise (V1Login, V1Login_get); GET and HEAD take the
// arguments as query parameters, the other methods as a JSON or form body
// (the query string is accepted too, as the operation's description says);
// X-Client and X-Platform are header parameters; an Owner(t) action
// requires the security scheme "jwt-<t>", and one declaring Spec.Scopes
// (with Config.OAuth) takes as well the scheme "oauth2" with its scopes
// (authorizationCode at the authorization server's endpoints, listing
// every declared scope); an action with a Spec.Reauth
// requirement names it in the extension x-reauthentication ("recent" or
// "second-factor") and documents the refusal's code; the success body is the result
// struct's JSON fields beside status and success (202 too when the result
// implements action.StatusCoder); and the error answers are grouped by
// status, each listing the codes of Spec.Errors, info.Errors and the
// framework's own.
//
// It reflects over the declarations on every call: serve the bytes of one
// call, as OpenAPIHandler does.
func (f *Framework) OpenAPI(info OpenAPIInfo) ([]byte, error) {
	g := newOpenAPIGen(f, info)
	doc := g.document()
	if g.err != nil {
		return nil, g.err
	}
	return json.MarshalIndent(doc, "", "  ")
}

// OpenAPIHandler serves the document of OpenAPI(info), for GET and HEAD.
// The document is generated once, at the first request, when every action
// is registered (info must not change after this call); a generation error
// is logged and answered with 500 INTERNAL_SERVER_ERROR. Answers may be
// cached for five minutes and carry an ETag; a matching If-None-Match gets
// 304 Not Modified.
func (f *Framework) OpenAPIHandler(info OpenAPIInfo) http.Handler {
	var (
		once sync.Once
		doc  []byte
		etag string
		err  error
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() {
			if doc, err = f.OpenAPI(info); err == nil {
				sum := sha256.Sum256(doc)
				etag = `"` + hex.EncodeToString(sum[:12]) + `"`
			}
		})
		if err != nil {
			f.WriteError(w, r, fmt.Errorf("openapi: %w", err))
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=300")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("ETag", etag)
		if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(doc)))
		if r.Method != http.MethodHead {
			_, _ = w.Write(doc)
		}
	})
}

// errorSchema is the body of every error answer.
func errorSchema() Schema {
	return Schema{
		"type":     "object",
		"required": []string{"status", "success", "error", "message", "requestId"},
		"properties": Schema{
			"status":    Schema{"type": "integer", "description": "The HTTP status."},
			"success":   Schema{"const": false},
			"error":     Schema{"type": "string", "description": "The error code."},
			"message":   Schema{"type": "string", "description": "What went wrong, in the caller's locale."},
			"requestId": Schema{"type": "string", "description": "The request id, as in the X-Request-ID header."},
			"fields": Schema{
				"type": "object", "additionalProperties": Schema{"type": "string"},
				"description": "Why each refused argument was refused (BAD_REQUEST_INVALID_ARGUMENTS only).",
			},
		},
	}
}

// clientHeaderParams are the X-Client and X-Platform headers every action
// reads.
func clientHeaderParams(clients []action.Client) map[string]oaParameter {
	enum := make([]string, len(clients))
	for i, c := range clients {
		enum[i] = string(c)
	}
	return map[string]oaParameter{
		"X-Client": {
			Name: "X-Client", In: "header",
			Description: "The client type, trimmed and lowercased; it selects the audience of issued tokens. Any other value is 400 BAD_REQUEST_INVALID_ARGUMENTS.",
			Schema:      Schema{"type": "string", "enum": enum, "default": enum[0]},
		},
		"X-Platform": {
			Name: "X-Platform", In: "header",
			Description: "The platform, trimmed and lowercased. Any other value is 400 BAD_REQUEST_INVALID_ARGUMENTS.",
			Schema:      Schema{"type": "string", "pattern": platformRe.String(), "default": "web"},
		},
	}
}

// standardHeaders are the response headers the framework writes.
func standardHeaders() map[string]Schema {
	return map[string]Schema{
		"X-Request-ID": {"description": "The request id: a well-formed incoming one is kept.", "schema": Schema{"type": "string"}},
		"Retry-After":  {"description": "Seconds to wait before trying again.", "schema": Schema{"type": "integer", "minimum": 1}},
	}
}
