// Package appclient is a mobile-style client of the bundled server: it
// logs in as an "app" client, keeps both tokens in memory (a real app keeps
// the refresh token in the platform's secure storage), sends the refresh
// token back in the request body, and refreshes once when the access token
// is refused.
package appclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
)

// Client talks to one server as one app installation.
type Client struct {
	BaseURL  string
	Platform string // "ios", "android", ...
	HTTP     *http.Client

	mu      sync.Mutex
	access  string
	refresh string
}

// Error is an error answer of the server.
type Error struct {
	Status  int    `json:"status"`
	Code    string `json:"error"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// Profile is the part of the user object this client shows.
type Profile struct {
	ID         string `json:"id"`
	Email      string `json:"email"`
	LoginCount int64  `json:"loginCount"`
}

type session struct {
	Token        string  `json:"token"`
	RefreshToken string  `json:"refreshToken"`
	User         Profile `json:"user"`
}

// Login opens a session and keeps its tokens.
func (c *Client) Login(ctx context.Context, email, password string) (*Profile, error) {
	var s session
	if err := c.post(ctx, "/v1/users/login", "", map[string]any{"email": email, "password": password}, &s); err != nil {
		return nil, err
	}
	c.keep(s)
	return &s.User, nil
}

// Refresh rotates the refresh token; the old one is dead afterwards.
func (c *Client) Refresh(ctx context.Context) error {
	c.mu.Lock()
	token := c.refresh
	c.mu.Unlock()
	var s session
	if err := c.post(ctx, "/v1/users/refresh", "", map[string]any{"refreshToken": token}, &s); err != nil {
		return err
	}
	c.keep(s)
	return nil
}

// Profile reads the user's profile, refreshing once if the access token
// was refused (expired, say).
func (c *Client) Profile(ctx context.Context) (*Profile, error) {
	var out struct {
		User Profile `json:"user"`
	}
	err := c.authed(ctx, "/v1/users/read", nil, &out)
	return &out.User, err
}

// Logout ends this session on the server and forgets the tokens.
func (c *Client) Logout(ctx context.Context) error {
	c.mu.Lock()
	token := c.refresh
	c.mu.Unlock()
	err := c.authed(ctx, "/v1/users/logout", map[string]any{"refreshToken": token}, nil)
	c.keep(session{})
	return err
}

// RefreshToken returns the refresh token held, for tests and storage.
func (c *Client) RefreshToken() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refresh
}

func (c *Client) keep(s session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.access, c.refresh = s.Token, s.RefreshToken
}

// authed sends an authenticated request, refreshing once on a 401.
func (c *Client) authed(ctx context.Context, path string, body, out any) error {
	c.mu.Lock()
	access := c.access
	c.mu.Unlock()
	err := c.post(ctx, path, access, body, out)
	if e, ok := err.(*Error); ok && e.Status == http.StatusUnauthorized {
		if err := c.Refresh(ctx); err != nil {
			return err
		}
		c.mu.Lock()
		access = c.access
		c.mu.Unlock()
		return c.post(ctx, path, access, body, out)
	}
	return err
}

func (c *Client) post(ctx context.Context, path, access string, body, out any) error {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Client", "app")
	req.Header.Set("X-Platform", c.Platform)
	if access != "" {
		req.Header.Set("Authorization", "jwt-user "+access)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		e := &Error{Status: res.StatusCode}
		_ = json.NewDecoder(res.Body).Decode(e)
		return e
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(res.Body).Decode(out)
}
