package accesstoken

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// MetadataPath is where an authorization server publishes its metadata
// (RFC 8414), after its issuer.
const MetadataPath = "/.well-known/oauth-authorization-server"

// ServerMetadata is the part of an authorization server's metadata a
// resource server needs.
type ServerMetadata struct {
	Issuer                string   `json:"issuer"`
	JWKSURI               string   `json:"jwks_uri"`
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	TokenEndpoint         string   `json:"token_endpoint"`
	ScopesSupported       []string `json:"scopes_supported"`
}

// maxMetadataBytes bounds the metadata document read.
const maxMetadataBytes = 1 << 20

// Discover fetches the metadata of the authorization server issuer
// (<issuer>/.well-known/oauth-authorization-server) with client (nil: one
// with a 10 s timeout) and checks that it names issuer exactly (RFC 8414
// §3.3) and a jwks_uri.
func Discover(ctx context.Context, client *http.Client, issuer string) (*ServerMetadata, error) {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(issuer, "/")+MetadataPath, nil)
	if err != nil {
		return nil, fmt.Errorf("accesstoken: discover %s: %w", issuer, err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("accesstoken: discover %s: %w", issuer, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("accesstoken: discover %s: status %d", issuer, res.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxMetadataBytes+1))
	if err != nil {
		return nil, fmt.Errorf("accesstoken: discover %s: %w", issuer, err)
	}
	if len(raw) > maxMetadataBytes {
		return nil, fmt.Errorf("accesstoken: discover %s: the metadata is over %d bytes", issuer, maxMetadataBytes)
	}
	var m ServerMetadata
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("accesstoken: discover %s: %w", issuer, err)
	}
	switch {
	case m.Issuer != issuer:
		return nil, fmt.Errorf("accesstoken: discover %s: the metadata names issuer %q", issuer, m.Issuer)
	case m.JWKSURI == "":
		return nil, errors.New("accesstoken: discover " + issuer + ": the metadata names no jwks_uri")
	}
	return &m, nil
}
