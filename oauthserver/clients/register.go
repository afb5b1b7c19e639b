package clients

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/actionkit/actionkit/models"
)

// Budget spends one request of a client address in the oauth rate class
// (CONTRACT §19, §22); the server implements it over its rate limits.
type Budget interface {
	// Spend counts one request of clientIP and reports whether it is
	// within the budget, and otherwise how long the client must wait.
	Spend(ctx context.Context, clientIP string) (retryAfter time.Duration, ok bool)
}

// maxRegistration bounds the body of a registration.
const maxRegistration = 64 << 10

// Registration answers RFC 7591 dynamic registration (POST
// /oauth2/register): anonymous, JSON, every request spending the client
// address's oauth budget. ClientIP returns the address of a request.
type Registration struct {
	Service  *Service
	Budget   Budget // nil: not limited
	ClientIP func(*http.Request) string
}

// registered is the answer to a registration: the client's id and, for a
// confidential client, its secret, with the registered metadata; absent
// members are omitted, never null.
type registered struct {
	ClientID                 string   `json:"client_id"`
	ClientIDIssuedAt         int64    `json:"client_id_issued_at"`
	ClientSecret             *string  `json:"client_secret,omitempty"`
	ClientSecretExpiresAt    *int64   `json:"client_secret_expires_at,omitempty"`
	ClientName               string   `json:"client_name,omitempty"`
	RedirectURIs             []string `json:"redirect_uris"`
	PostLogoutRedirectURIs   []string `json:"post_logout_redirect_uris,omitempty"`
	GrantTypes               []string `json:"grant_types"`
	ResponseTypes            []string `json:"response_types"`
	TokenEndpointAuthMethod  string   `json:"token_endpoint_auth_method"`
	Scope                    string   `json:"scope,omitempty"`
	LogoURI                  string   `json:"logo_uri,omitempty"`
	ClientURI                string   `json:"client_uri,omitempty"`
	IDTokenSignedResponseAlg string   `json:"id_token_signed_response_alg"`
}

// Register registers a dynamic client from m and returns it with its
// secret (nil for a public client).
func (s *Service) Register(ctx context.Context, m *Metadata) (*models.OAuthClient, *string, error) {
	c, fe := s.Policy.client(m, models.OAuthClientDynamic)
	if fe != nil {
		return nil, nil, fe
	}
	return s.insert(ctx, c)
}

// ServeHTTP registers a client.
func (h *Registration) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if h.Budget != nil {
		if wait, ok := h.Budget.Spend(r.Context(), h.ClientIP(r)); !ok {
			WriteTooManyRequests(w, wait)
			return
		}
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "the request must be JSON (Content-Type: application/json)")
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistration))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "the request body is too large or unreadable")
		return
	}
	m, fe := ParseMetadata(raw)
	if fe != nil {
		writeFieldError(w, fe)
		return
	}
	c, secret, err := h.Service.Register(r.Context(), m)
	if errors.As(err, &fe) {
		writeFieldError(w, fe)
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", "the client could not be registered")
		return
	}
	out := registered{ClientID: c.ClientID, ClientIDIssuedAt: c.CreatedAt.Unix(), ClientSecret: secret,
		ClientName: c.Name, RedirectURIs: c.RedirectURIs, PostLogoutRedirectURIs: c.PostLogoutRedirectURIs,
		GrantTypes: c.GrantTypes, ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: c.TokenEndpointAuthMethod,
		IDTokenSignedResponseAlg: c.IDTokenAlg}
	if secret != nil {
		var never int64
		out.ClientSecretExpiresAt = &never
	}
	for _, f := range []struct {
		dst *string
		v   *string
	}{{&out.Scope, c.Scope}, {&out.LogoURI, c.LogoURI}, {&out.ClientURI, c.ClientURI}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	writeJSON(w, http.StatusCreated, out)
}

// writeFieldError answers an invalid member in RFC 7591 §3.2.2 form:
// invalid_redirect_uri for a redirect URI, else invalid_client_metadata.
func writeFieldError(w http.ResponseWriter, fe *FieldError) {
	code := "invalid_client_metadata"
	if fe.Redirect {
		code = "invalid_redirect_uri"
	}
	desc := fe.Reason
	if fe.Member != "body" {
		desc = fe.Member + ": " + fe.Reason
	}
	writeError(w, http.StatusBadRequest, code, desc)
}

// WriteTooManyRequests answers a refusal of the oauth rate class at a
// protocol endpoint: 429 with Retry-After (at least a second).
func WriteTooManyRequests(w http.ResponseWriter, wait time.Duration) {
	secs := int64((wait + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
	writeError(w, http.StatusTooManyRequests, "temporarily_unavailable", "too many requests; retry later")
}

// writeError answers an OAuth error object {error, error_description}.
func writeError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
