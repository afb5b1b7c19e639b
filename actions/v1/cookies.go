package v1

import (
	"net/http"
	"time"

	"github.com/actionkit/actionkit/action"
)

// Cookies is the one definition of the refresh cookie, used both to set and
// to clear it: browsers only clear a cookie whose attributes match.
type Cookies struct {
	// Secure marks the cookie Secure (production).
	Secure bool
	// MaxAge is the refresh-token lifetime, sent when the cookie is set.
	MaxAge time.Duration
	// Name names the refresh cookie of an owner type; nil means
	// OwnerType.RefreshCookie ("jwt-user-refresh").
	Name func(action.OwnerType) string
}

// NameOf is the name of owner's refresh cookie.
func (c Cookies) NameOf(owner action.OwnerType) string {
	if c.Name != nil {
		return c.Name(owner)
	}
	return owner.RefreshCookie()
}

// Read returns the refresh token the request's cookie carries, if any.
func (c Cookies) Read(req *action.Request, owner action.OwnerType) (string, bool) {
	return req.Cookie(c.NameOf(owner))
}

func (c Cookies) base(owner action.OwnerType, value string) *http.Cookie {
	return &http.Cookie{
		Name:     c.NameOf(owner),
		Value:    value,
		Path:     "/",
		HttpOnly: true,
		Secure:   c.Secure,
		SameSite: http.SameSiteStrictMode,
	}
}

// Set adds the refresh cookie carrying raw to the response.
func (c Cookies) Set(req *action.Request, owner action.OwnerType, raw string) {
	ck := c.base(owner, raw)
	ck.MaxAge = int(c.MaxAge / time.Second)
	req.SetCookie(ck)
}

// Clear adds a Set-Cookie that deletes the refresh cookie: the same
// attributes, an empty value and an expiry in the past instead of Max-Age.
func (c Cookies) Clear(req *action.Request, owner action.OwnerType) {
	ck := c.base(owner, "")
	ck.Expires = time.Unix(0, 0)
	req.SetCookie(ck)
}
