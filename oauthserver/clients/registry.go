package clients

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/webhooks"
)

// The bounds of a client ID metadata document fetch (CONTRACT §19).
const (
	// DocumentTimeout bounds a whole fetch.
	DocumentTimeout = 5 * time.Second
	// MaxDocument is the largest document read, in bytes.
	MaxDocument = 5 << 10
	// FailureTTL is how long a document that could not be fetched or
	// validated is not fetched again.
	FailureTTL = 5 * time.Minute
	// MinDocumentTTL and MaxDocumentTTL bound how long a document is kept,
	// whatever its Cache-Control says.
	MinDocumentTTL = 5 * time.Minute
	MaxDocumentTTL = 24 * time.Hour
)

// RateLimitedError reports that the client address spent its oauth
// budget: the protocol endpoint answers 429 with RetryAfter
// (WriteTooManyRequests).
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("clients: too many requests; retry after %s", e.RetryAfter)
}

type clientIPKey struct{}

// WithClientIP returns ctx carrying the address of the client whose
// request resolves a client: a metadata document fetch spends its oauth
// budget. Without it a fetch spends none.
func WithClientIP(ctx context.Context, ip string) context.Context {
	return context.WithValue(ctx, clientIPKey{}, ip)
}

// RegistryConfig configures a Registry.
type RegistryConfig struct {
	DB     *sqlx.DB
	Policy Policy
	Now    func() time.Time
	// MetadataDocuments is OAUTH_CLIENT_METADATA_DOCUMENTS: a client_id
	// that is an https URL names a client ID metadata document.
	MetadataDocuments bool
	// Guard decides which addresses a document may be fetched from (the
	// webhooks' guard: public addresses only, checked when the connection
	// is made, except the OAUTH_INSECURE_HOSTS).
	Guard *webhooks.Guard
	// Redis keeps the failed fetches, under Prefix, for every instance.
	Redis  *redis.Pool
	Prefix string
	// Budget counts fetches in the client address's oauth class (nil:
	// not limited).
	Budget Budget
	// Timeout bounds a fetch; zero means DocumentTimeout.
	Timeout time.Duration
	Log     *slog.Logger
}

// Registry finds the client a client_id names (the Clients interface of
// package oauthserver): an admin or dynamic client from the database, or,
// when metadata documents are on, the client of a client ID metadata
// document, fetched and kept in its row until it expires. A disabled client
// is never found, whatever its document says.
//
// Concurrent resolutions of one document URL in a process share one fetch
// (a single flight keyed by the URL); instances do not coordinate, so each
// fetches at most once per expiry, and a failure recorded in Redis by one
// stops the others for FailureTTL.
type Registry struct {
	cfg    RegistryConfig
	store  models.OAuthClientStore
	client *http.Client

	mu      sync.Mutex
	flights map[string]*flight
}

// flight is a fetch under way, shared by the resolutions that wait for it.
type flight struct {
	done chan struct{}
	// waiters counts the resolutions sharing it (read by tests).
	waiters int
	c       *models.OAuthClient
	err     error
}

// NewRegistry returns the Registry of cfg.
func NewRegistry(cfg RegistryConfig) *Registry {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DocumentTimeout
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Guard == nil {
		cfg.Guard = &webhooks.Guard{}
	}
	transport := &http.Transport{
		Proxy:                  nil, // proxy variables are ignored
		DialContext:            cfg.Guard.DialContext,
		TLSHandshakeTimeout:    cfg.Timeout,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: 16 << 10,
		DisableKeepAlives:      true,
		ForceAttemptHTTP2:      true,
	}
	return &Registry{
		cfg:   cfg,
		store: models.OAuthClientStore{}.Prepared(cfg.DB),
		client: &http.Client{Transport: transport, Timeout: cfg.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		flights: map[string]*flight{},
	}
}

// Client returns the enabled client named clientID. An unknown or disabled
// client, or a document that cannot be fetched or validated, is an error
// wrapping models.ErrNotFound; a client address over its oauth budget is a
// *RateLimitedError; anything else is an infrastructure failure.
func (r *Registry) Client(ctx context.Context, clientID string) (*models.OAuthClient, error) {
	if r.cfg.MetadataDocuments && looksLikeURL(clientID) {
		return r.metadataClient(ctx, clientID)
	}
	if clientID == "" || len(clientID) > maxURI {
		return nil, ErrNotFound
	}
	c, err := r.store.ByClientID(ctx, r.cfg.DB, clientID)
	if err != nil {
		return nil, notFound(err)
	}
	if c.DisabledAt != nil || c.Source == models.OAuthClientMetadata {
		// A metadata client is only ever found through its document.
		return nil, ErrNotFound
	}
	return c, nil
}

// looksLikeURL reports whether a client_id is meant as a document URL.
func looksLikeURL(id string) bool {
	return strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://")
}

// documentError is a document that cannot be used: it is a not-found
// client, with the reason.
type documentError struct{ reason error }

func (e *documentError) Error() string {
	return "clients: client ID metadata document: " + e.reason.Error()
}

func (e *documentError) Unwrap() []error { return []error{models.ErrNotFound, e.reason} }

func refused(format string, args ...any) error {
	return &documentError{reason: fmt.Errorf(format, args...)}
}

// DocumentURL reports why raw may not be a client ID metadata document's
// URL, or nil: https (http only for an OAUTH_INSECURE_HOSTS host), a host,
// a path other than "/", no fragment, no user information, no dot
// segments, at most 2048 bytes.
func (r *Registry) DocumentURL(raw string) error {
	if err := plainURI(raw); err != nil {
		return err
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" || u.Opaque != "" {
		return errors.New("must be an absolute URL")
	}
	if u.User != nil {
		return errors.New("must not carry user information")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && r.cfg.Guard.AllowsInsecure(u.Hostname(), u.Port()):
	default:
		return errors.New("must be an https URL")
	}
	if u.Path == "" || u.Path == "/" {
		return errors.New("must have a path")
	}
	return plainPath(u)
}

// metadataClient resolves a document client: its row while the document
// is fresh, else the document fetched again.
func (r *Registry) metadataClient(ctx context.Context, id string) (*models.OAuthClient, error) {
	if err := r.DocumentURL(id); err != nil {
		return nil, &documentError{reason: err}
	}
	row, err := r.store.ByClientID(ctx, r.cfg.DB, id)
	switch {
	case err == nil:
		if row.DisabledAt != nil || row.Source != models.OAuthClientMetadata {
			return nil, ErrNotFound
		}
		if row.MetadataExpiresAt != nil && r.cfg.Now().Before(*row.MetadataExpiresAt) {
			return row, nil
		}
	case !errors.Is(err, models.ErrNotFound):
		return nil, err
	}
	if reason, failed := r.recentFailure(ctx, id); failed {
		return nil, refused("failed within the last %s: %s", FailureTTL, reason)
	}
	if ip, ok := ctx.Value(clientIPKey{}).(string); ok && r.cfg.Budget != nil {
		if wait, ok := r.cfg.Budget.Spend(ctx, ip); !ok {
			return nil, &RateLimitedError{RetryAfter: wait}
		}
	}
	return r.shared(ctx, id)
}

// shared runs the fetch of id, or joins the one under way in this process.
// The fetch is not cancelled with the caller that started it: the others
// wait for it (within the fetch's own timeout).
func (r *Registry) shared(ctx context.Context, id string) (*models.OAuthClient, error) {
	r.mu.Lock()
	f, ok := r.flights[id]
	if !ok {
		f = &flight{done: make(chan struct{})}
		r.flights[id] = f
		go func() {
			f.c, f.err = r.resolve(context.WithoutCancel(ctx), id)
			r.mu.Lock()
			delete(r.flights, id)
			r.mu.Unlock()
			close(f.done)
		}()
	}
	f.waiters++
	r.mu.Unlock()
	select {
	case <-f.done:
		return f.c, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// resolve fetches and validates the document of id and stores its client;
// a failure is recorded for FailureTTL.
func (r *Registry) resolve(ctx context.Context, id string) (*models.OAuthClient, error) {
	c, ttl, err := r.fetch(ctx, id)
	if err != nil {
		var de *documentError
		if errors.As(err, &de) {
			r.recordFailure(ctx, id, de.reason.Error())
		}
		return nil, err
	}
	id7, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	now := r.cfg.Now()
	exp := now.Add(ttl)
	c.ID, c.ClientID, c.MetadataExpiresAt = id7, id, &exp
	stored, err := r.store.UpsertMetadata(ctx, r.cfg.DB, c, now)
	if err != nil {
		return nil, notFound(err)
	}
	if stored.DisabledAt != nil {
		return nil, ErrNotFound
	}
	return stored, nil
}

// fetch GETs the document at id and returns its client and how long to
// keep it.
func (r *Registry) fetch(ctx context.Context, id string) (*models.OAuthClient, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, 0, refused("%v", err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := r.client.Do(req)
	if err != nil {
		if errors.Is(err, webhooks.ErrRefusedAddress) {
			return nil, 0, &documentError{reason: fmt.Errorf("%w (not a public address)", webhooks.ErrRefusedAddress)}
		}
		return nil, 0, refused("could not be fetched: %v", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, 0, refused("answered %d, want 200 (redirects are not followed)", res.StatusCode)
	}
	if mt, _, err := mime.ParseMediaType(res.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, 0, refused("is %q, want application/json", res.Header.Get("Content-Type"))
	}
	if res.ContentLength > MaxDocument {
		return nil, 0, refused("is larger than %d bytes", MaxDocument)
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, MaxDocument+1))
	if err != nil {
		return nil, 0, refused("could not be read: %v", err)
	}
	if len(raw) > MaxDocument {
		return nil, 0, refused("is larger than %d bytes", MaxDocument)
	}
	m, fe := ParseMetadata(raw)
	if fe != nil {
		return nil, 0, refused("%s: %s", fe.Member, fe.Reason)
	}
	if m.ClientID == nil || *m.ClientID != id {
		return nil, 0, refused("client_id must equal the document's URL")
	}
	c, fe := r.cfg.Policy.client(m, models.OAuthClientMetadata)
	if fe != nil {
		return nil, 0, refused("%s: %s", fe.Member, fe.Reason)
	}
	return c, documentTTL(res.Header.Get("Cache-Control")), nil
}

// documentTTL is how long a document is kept: its Cache-Control max-age
// (no-store and no-cache meaning none), between MinDocumentTTL and
// MaxDocumentTTL.
func documentTTL(cacheControl string) time.Duration {
	ttl := time.Duration(0)
	for _, d := range strings.Split(cacheControl, ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(name) {
		case "no-store", "no-cache":
			return MinDocumentTTL
		case "max-age":
			if n, err := strconv.ParseInt(strings.Trim(val, `"`), 10, 64); err == nil && n > 0 {
				ttl = time.Duration(min(n, int64(MaxDocumentTTL/time.Second))) * time.Second
			}
		}
	}
	return min(max(ttl, MinDocumentTTL), MaxDocumentTTL)
}

// failureKey is the Redis key of a failed document.
func (r *Registry) failureKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return r.cfg.Prefix + hex.EncodeToString(sum[:])
}

// recentFailure reports whether the document of id failed within
// FailureTTL, and why. Redis unavailable, it reports none: the fetch is
// still bounded by the budget.
func (r *Registry) recentFailure(ctx context.Context, id string) (string, bool) {
	if r.cfg.Redis == nil {
		return "", false
	}
	conn, err := r.cfg.Redis.GetContext(ctx)
	if err != nil {
		r.cfg.Log.Warn("client metadata failures: redis unavailable", "error", err)
		return "", false
	}
	defer conn.Close()
	reason, err := redis.String(redis.DoContext(conn, ctx, "GET", r.failureKey(id)))
	if err != nil {
		if !errors.Is(err, redis.ErrNil) {
			r.cfg.Log.Warn("client metadata failures: redis unavailable", "error", err)
		}
		return "", false
	}
	return reason, true
}

// recordFailure keeps why the document of id failed for FailureTTL.
func (r *Registry) recordFailure(ctx context.Context, id, reason string) {
	r.cfg.Log.Info("client metadata document refused", "clientId", id, "reason", reason)
	if r.cfg.Redis == nil {
		return
	}
	conn, err := r.cfg.Redis.GetContext(ctx)
	if err != nil {
		r.cfg.Log.Warn("client metadata failures: redis unavailable", "error", err)
		return
	}
	defer conn.Close()
	if _, err := redis.DoContext(conn, ctx, "SET", r.failureKey(id), reason, "PX", FailureTTL.Milliseconds()); err != nil {
		r.cfg.Log.Warn("client metadata failures: redis unavailable", "error", err)
	}
}
