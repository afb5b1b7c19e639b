package framework

import (
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

var platformRe = regexp.MustCompile(`^[a-z0-9_-]{1,32}$`)

// validPlatform reports whether p matches platformRe, without running it:
// 1 to 32 of a-z, 0-9, _ and -.
func validPlatform(p string) bool {
	if len(p) == 0 || len(p) > 32 {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// parseClientHeaders reads X-Client (one of the conventions' client
// types, by default the first) and X-Platform (1-32 of a-z 0-9 _ -,
// default web), trimmed and lowercased.
func (f *Framework) parseClientHeaders(r *http.Request, req *action.Request) *errorcodes.Error {
	client := action.Client(strings.ToLower(strings.TrimSpace(r.Header.Get("X-Client"))))
	switch {
	case client == "":
		req.Client = f.conv.Clients[0]
	case slices.Contains(f.conv.Clients, client):
		req.Client = client
	default:
		if slices.Equal(f.conv.Clients, defaultClients) {
			return invalid("X-Client", "client", "must be web or app", nil)
		}
		return invalid("X-Client", "client_of", "must be one of: {clients}", map[string]any{"clients": clientList(f.conv.Clients)})
	}
	platform := strings.ToLower(strings.TrimSpace(r.Header.Get("X-Platform")))
	if platform == "" {
		platform = "web"
	}
	if !validPlatform(platform) {
		return invalid("X-Platform", "platform", "must be 1 to 32 characters of a-z, 0-9, _ and -", nil)
	}
	req.Platform = platform
	return nil
}

// authorize resolves the caller and applies the action's access rule
// before the action runs. Public actions ignore the Authorization header.
// An action that declares Scopes also takes an OAuth access token
// ("Authorization: Bearer", typ at+jwt); every other action leaves such a
// token to the Authenticator, which does not know it (401).
func (f *Framework) authorize(r *http.Request, spec action.Spec, req *action.Request) error {
	if spec.Auth.Kind == action.KindPublic {
		return nil
	}
	scoped := f.oauth != nil && len(spec.Scopes) > 0
	if scoped {
		if call, _ := r.Context().Value(mcpCallKey{}).(*mcpCall); call != nil {
			if ok, err := f.oauth.authorizeToolCall(call, spec, req); ok {
				return err
			}
		}
		if token, ok := bearerToken(r); ok && looksLikeAccessToken(token) {
			return f.authorizeOAuth(r, spec, req, token)
		}
		if r.Context().Value(mcpCallKey{}) != nil {
			// A tool call takes only the MCP endpoint's OAuth token.
			_, metadata := f.oauth.expectedResource(r)
			return unauthorizedChallenge(metadata)
		}
	}
	err := f.authorizeFirstParty(r, spec, req)
	if scoped && errorcodes.Is(err, errorcodes.Unauthorized) {
		return unauthorizedChallenge(f.oauth.metadataURL)
	}
	return err
}

// authorizeFirstParty resolves the caller through the Authenticator.
func (f *Framework) authorizeFirstParty(r *http.Request, spec action.Spec, req *action.Request) error {
	var caller *action.Caller
	if f.cfg.Authenticator != nil && f.conv.Presents(r) {
		needs := action.Needs{Assurance: spec.Reauth != action.ReauthNone}
		c, err := f.cfg.Authenticator.Authenticate(r.Context(), r, needs)
		if err != nil {
			return err
		}
		caller = c
	}
	req.Caller = caller
	switch spec.Auth.Kind {
	case action.KindLoggedOut:
		if caller != nil && caller.Type == spec.Auth.Owner {
			return errorcodes.Unauthorized.New()
		}
	case action.KindOwner:
		if caller == nil || caller.Type != spec.Auth.Owner || !spec.Allows(caller.Client) {
			return errorcodes.Unauthorized.New()
		}
	case action.KindOptional:
		if caller != nil && (caller.Type != spec.Auth.Owner || !spec.Allows(caller.Client)) {
			req.Caller = nil
		}
	}
	return nil
}

// clientList reads "kiosk, cli".
func clientList(cs []action.Client) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = string(c)
	}
	return strings.Join(parts, ", ")
}
