package v1_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/errorcodes"
)

// TestAccountError maps each failure of the engine, wrapped or not, to the
// kind's code (with Retry-After where the client should wait); an error
// the engine does not name passes through unchanged, to become a 500.
func TestAccountError(t *testing.T) {
	outage := errors.New("connection refused")
	for _, tc := range []struct {
		name  string
		kind  accounts.Kind
		err   error
		code  string
		retry time.Duration
		field string
	}{
		{"invalid credentials", accounts.Users, accounts.ErrInvalidCredentials, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS", 0, ""},
		{"an admin's invalid credentials", accounts.Admins, accounts.ErrInvalidCredentials, "ADMIN_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS", 0, ""},
		{"inactive", accounts.Users, accounts.ErrInactive, "USER_BAD_REQUEST_ACCOUNT_INACTIVE", 0, ""},
		{"deleted", accounts.Admins, accounts.ErrDeleted, "ADMIN_BAD_REQUEST_ACCOUNT_DELETED", 0, ""},
		{"not found", accounts.Users, accounts.ErrNotFound, "USER_BAD_REQUEST_ACCOUNT_DOES_NOT_EXIST", 0, ""},
		{"invalid refresh", accounts.Admins, accounts.ErrInvalidRefresh, "ADMIN_UNAUTHORIZED_INVALID_REFRESH_TOKEN", 0, ""},
		{"unknown refresh", accounts.Users, accounts.ErrUnknownRefresh, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN", 0, ""},
		{"exists", accounts.Users, accounts.ErrExists, "USER_BAD_REQUEST_USER_ALREADY_EXISTS", 0, ""},
		{"slowed down", accounts.Users, &accounts.SlowedDownError{RetryAfter: 90 * time.Second}, "TOO_MANY_REQUESTS", 90 * time.Second, ""},
		{"slowed down for less than a second", accounts.Users, &accounts.SlowedDownError{RetryAfter: time.Millisecond}, "TOO_MANY_REQUESTS", time.Second, ""},
		{"budget spent", accounts.Users, &accounts.LimitedError{RetryAfter: time.Hour}, "TOO_MANY_REQUESTS", time.Hour, ""},
		{"not verified", accounts.Users, accounts.ErrNotVerified, "USER_BAD_REQUEST_EMAIL_NOT_VERIFIED", 0, ""},
		{"session ended", accounts.Users, accounts.ErrSessionEnded, "UNAUTHORIZED", 0, ""},
		{"invalid cursor", accounts.Users, accounts.ErrInvalidCursor, "BAD_REQUEST_INVALID_ARGUMENTS", 0, "cursor"},
		{"busy hashing", accounts.Users, auth.ErrBusy, "SERVICE_BUSY", time.Second, ""},
		{"wrapped", accounts.Users, fmt.Errorf("login: %w", accounts.ErrInactive), "USER_BAD_REQUEST_ACCOUNT_INACTIVE", 0, ""},
		{"an admin exists", accounts.Admins, accounts.ErrExists, "", 0, ""}, // admins have no registration
		{"an outage", accounts.Users, outage, "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := v1.AccountError(tc.kind, tc.err)
			e, coded := errorcodes.As(got)
			if tc.code == "" {
				if coded || !errors.Is(got, tc.err) {
					t.Errorf("got %v, want %v unchanged", got, tc.err)
				}
				return
			}
			if !coded || e.Code.ID() != tc.code || e.RetryAfter != tc.retry || (tc.field != "" && e.Fields[tc.field].Code == "") {
				t.Errorf("got %+v, want %s (Retry-After %v, field %q)", got, tc.code, tc.retry, tc.field)
			}
		})
	}
}
