package action

import (
	"net/http"
	"time"
)

// Request carries what an action may know of the HTTP request beyond its
// arguments: who is calling, from where, and a sink for cookies.
type Request struct {
	// ID is the request id, echoed in the X-Request-ID header.
	ID string
	// Action is the wire name of the action being run.
	Action string
	// Caller is the authenticated principal, or nil when anonymous.
	Caller *Caller
	// Client is the client type from the X-Client header (default web).
	Client Client
	// Platform is the X-Platform header, lowercased (default "web").
	Platform string
	// IP is the client address, from the connection or, behind a trusted
	// proxy, from X-Forwarded-For.
	IP string
	// UserAgent is the User-Agent header.
	UserAgent string
	// Locale is the locale messages are rendered in.
	Locale string
	// Received is when the framework received the request.
	Received time.Time

	cookies  []*http.Cookie
	incoming func(name string) (*http.Cookie, error)
}

// NewRequest returns a Request reading cookies through incoming, which has
// the signature of (*http.Request).Cookie. The framework builds requests
// with it; tests of a single action may too.
func NewRequest(incoming func(name string) (*http.Cookie, error)) *Request {
	return &Request{incoming: incoming}
}

// Cookie returns the value of the named request cookie.
func (r *Request) Cookie(name string) (string, bool) {
	if r.incoming == nil {
		return "", false
	}
	c, err := r.incoming(name)
	if err != nil {
		return "", false
	}
	return c.Value, true
}

// SetCookie adds a Set-Cookie header to the response. The cookies are
// written with the action's answer, a success or a coded error alike (a
// failed refresh may clear a dead cookie), but not with an internal error.
func (r *Request) SetCookie(c *http.Cookie) { r.cookies = append(r.cookies, c) }

// Cookies returns the cookies set by SetCookie, in order.
func (r *Request) Cookies() []*http.Cookie { return r.cookies }
