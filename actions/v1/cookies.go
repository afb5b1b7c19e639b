package v1

import (
	"net/http"
	"time"

	"github.com/actionkit/actionkit/action"
)

// Cookies is the one definition of the refresh cookie, used both to set and
// to clear it (browsers only clear a cookie whose attributes match), and of
// the device cookie.
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

// DeviceMaxAge is the lifetime of the device cookie. The server trusts a
// device for a shorter time after its last login; the cookie outlives
// that so that its value is kept (and trusted again) at the next login.
const DeviceMaxAge = 365 * 24 * time.Hour

// DeviceNameOf is the name of owner's device cookie: "jwt-user-device".
func (c Cookies) DeviceNameOf(owner action.OwnerType) string {
	return "jwt-" + string(owner) + "-device"
}

// ReadDevice returns the device value the request's cookie carries, if any.
func (c Cookies) ReadDevice(req *action.Request, owner action.OwnerType) (string, bool) {
	return req.Cookie(c.DeviceNameOf(owner))
}

// SetDevice adds the device cookie carrying value to the response. It is
// SameSite=Lax, not Strict like the refresh cookie: it authorises nothing,
// and a login reached from a link elsewhere should still present it.
func (c Cookies) SetDevice(req *action.Request, owner action.OwnerType, value string) {
	req.SetCookie(&http.Cookie{
		Name:     c.DeviceNameOf(owner),
		Value:    value,
		Path:     "/",
		MaxAge:   int(DeviceMaxAge / time.Second),
		HttpOnly: true,
		Secure:   c.Secure,
		SameSite: http.SameSiteLaxMode,
	})
}

// FlowCookie is the name of the cookie that binds an identity-provider
// flow to the browser that started it.
const FlowCookie = "oidc-flow"

// FlowMaxAge is the lifetime of the flow cookie: that of a flow.
const FlowMaxAge = 10 * time.Minute

// ReadFlow returns the flow cookie the request carries, if any.
func (c Cookies) ReadFlow(req *action.Request) (string, bool) {
	return req.Cookie(FlowCookie)
}

// SetFlow adds the flow cookie carrying value. It is SameSite=Lax: the
// provider sends the browser back with a top-level navigation from its
// own site, which Strict would strip it from. Its path keeps it to the
// flow's actions.
func (c Cookies) SetFlow(req *action.Request, value string) {
	req.SetCookie(&http.Cookie{
		Name:     FlowCookie,
		Value:    value,
		Path:     "/v1/users/oidc/",
		MaxAge:   int(FlowMaxAge / time.Second),
		HttpOnly: true,
		Secure:   c.Secure,
		SameSite: http.SameSiteLaxMode,
	})
}
