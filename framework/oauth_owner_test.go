package framework

import (
	"net/http"
	"testing"

	"github.com/actionkit/actionkit/action"
)

// TestOAuthWithoutSessionsKeepsTheTokensOwner: without an OAuthSessions
// hook the framework resolves a token's caller from the token alone, and
// its tokens name subjects of OAuth.Owner (default user): a scoped action
// of another owner type (an admin one) must refuse them rather than run
// with a user's token as an admin caller.
func TestOAuthWithoutSessionsKeepsTheTokensOwner(t *testing.T) {
	a := newAuthServer(t)
	f := newOAuthFramework(t, a, nil)
	Register(f, noteAction{action.Spec{Name: "V1AdminNotesRead", Path: "/v1/admin/notes/read",
		Summary: "Read any note", Auth: action.Owner("admin"), Scopes: []string{"notes:read"}}})
	user := a.mint(t, grant{scope: "notes:read"})
	res := do(t, f, http.MethodPost, "/v1/admin/notes/read", "application/json", `{"text":"hi"}`, bearer(user)...)
	if res.Code != http.StatusUnauthorized {
		t.Fatalf("a user's token (OAuth.Owner user) on an admin action: %d %s", res.Code, res.Raw)
	}
}
