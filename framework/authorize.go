package framework

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

var platformRe = regexp.MustCompile(`^[a-z0-9_-]{1,32}$`)

// parseClientHeaders reads X-Client (web or app, default web) and
// X-Platform (1-32 of a-z 0-9 _ -, default web), trimmed and lowercased.
func parseClientHeaders(r *http.Request, req *action.Request) *errorcodes.Error {
	client := strings.ToLower(strings.TrimSpace(r.Header.Get("X-Client")))
	switch client {
	case "", string(action.Web):
		req.Client = action.Web
	case string(action.App):
		req.Client = action.App
	default:
		return invalid("X-Client", "client", "must be web or app", nil)
	}
	platform := strings.ToLower(strings.TrimSpace(r.Header.Get("X-Platform")))
	if platform == "" {
		platform = "web"
	}
	if !platformRe.MatchString(platform) {
		return invalid("X-Platform", "platform", "must be 1 to 32 characters of a-z, 0-9, _ and -", nil)
	}
	req.Platform = platform
	return nil
}

// authorize resolves the caller and applies the action's access rule
// before the action runs. Public actions ignore the Authorization header.
func (f *Framework) authorize(r *http.Request, spec action.Spec, req *action.Request) error {
	if spec.Auth.Kind == action.KindPublic {
		return nil
	}
	var caller *action.Caller
	if f.cfg.Authenticator != nil && r.Header.Get("Authorization") != "" {
		c, err := f.cfg.Authenticator.Authenticate(r.Context(), r)
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
	}
	return nil
}
