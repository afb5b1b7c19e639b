package main

import (
	"net/http"
	"testing"
)

// TestUnusedOneTimeTokensDieWithTheChange gives a user an unused
// verification token, an unused reset token and an unused e-mail change
// token, then makes one change that
// ends the user's credentials or sessions: afterwards neither token works
// (where the change leaves the account usable again, as reactivation and
// restore do, too).
func TestUnusedOneTimeTokensDieWithTheChange(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t)
	createAdmin(t, s.env, "voider@example.com")
	a, _ := adminLogin(t, s, "voider@example.com", "web")
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, u *registered, reset string)
	}{
		{"password change", func(t *testing.T, u *registered, _ string) {
			u.c.call(http.MethodPost, "/v1/users/changepassword", map[string]any{"currentPassword": strongPassword, "newPassword": newPassword}, u.auth()...).want(t, 200, "")
		}},
		{"password reset", func(t *testing.T, _ *registered, reset string) {
			s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": reset, "password": newPassword}).want(t, 200, "")
		}},
		{"logoutall", func(t *testing.T, u *registered, _ string) {
			u.c.call(http.MethodPost, "/v1/users/logoutall", nil, u.auth()...).want(t, 200, "")
		}},
		{"admin revokesessions", func(t *testing.T, u *registered, _ string) {
			adminCall(a, "revokesessions", u.id).want(t, 200, "")
		}},
		{"theft response", func(t *testing.T, u *registered, _ string) {
			refreshWith(s.client(), http.MethodPost, u.refresh).want(t, 200, "")
			refreshWith(s.client(), http.MethodPost, u.refresh).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
		}},
		{"deactivation", func(t *testing.T, u *registered, _ string) {
			adminCall(a, "deactivate", u.id).want(t, 200, "")
			adminCall(a, "activate", u.id).want(t, 200, "")
		}},
		{"deletion", func(t *testing.T, u *registered, _ string) {
			adminCall(a, "delete", u.id).want(t, 200, "")
			adminCall(a, "restore", u.id).want(t, 200, "")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u := register(t, s.client(), "app")
			verify := tokenOf(t, waitMails(t, smtp, u.email, "Confirm your e-mail address", 1)[0], verifyLinkRe)
			s.client().call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": u.email}).want(t, 200, "")
			reset := tokenOf(t, waitMails(t, smtp, u.email, "Reset your password", 1)[0], resetLinkRe)
			change := changeToken(t, smtp, u, "void-"+uniqueEmail(), 1)
			tc.change(t, u, reset)
			confirmChange(s, change).want(t, 400, "USER_BAD_REQUEST_INVALID_EMAIL_CHANGE_TOKEN")
			s.client().call(http.MethodPost, "/v1/users/verifyemail", map[string]any{"token": verify}).
				want(t, 400, "USER_BAD_REQUEST_INVALID_VERIFICATION_TOKEN")
			s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": reset, "password": "Another-Password-99"}).
				want(t, 400, "USER_BAD_REQUEST_INVALID_RESET_TOKEN")
		})
	}
}
