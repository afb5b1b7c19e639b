package accounts

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"golang.org/x/oauth2"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth/datakey"
	"github.com/actionkit/actionkit/federation"
	"github.com/actionkit/actionkit/models"
)

// Sign-in through identity providers runs in three steps. Start stores a
// flow (its state, nonce and the server's PKCE verifier, the place to
// return to, the browser it is bound to) and answers the provider's
// authorization URL. Callback, reached from the provider, checks the flow
// and the provider's answer, applies the linking policy and answers where
// to send the browser: back to the flow's page with a one-time result
// code in the fragment (never a token in a URL), or an error code. Exchange
// trades the result code for a login through the completion step every
// login ends in, so a second factor applies.
//
// The linking policy's point is that an e-mail address never logs anyone
// into an account on its own: a provider may not verify addresses, may
// let people change them, and anyone can register an address before its
// owner signs in. Only the pair (provider, subject) names a person.

// The failures of the identity-provider flows.
var (
	ErrUnknownProvider = errors.New("accounts: unknown identity provider")
	// ErrInvalidRedirect: a place to return to that is not an absolute
	// URL of an allowed origin.
	ErrInvalidRedirect = errors.New("accounts: redirect target not allowed")
	// ErrMissingChallenge: an app's flow without its PKCE challenge, or
	// a malformed one.
	ErrMissingChallenge = errors.New("accounts: code challenge required")
	// ErrProviderUnavailable: the provider's discovery document could not
	// be read.
	ErrProviderUnavailable = errors.New("accounts: identity provider unavailable")
	ErrInvalidOIDCState    = errors.New("accounts: invalid oidc state")
	ErrOIDCProvider        = errors.New("accounts: identity provider error")
	ErrIdentityLinked      = errors.New("accounts: identity linked to another user")
	ErrOIDCAccountExists   = errors.New("accounts: an account has this e-mail address")
	ErrSignupDisabled      = errors.New("accounts: signup disabled for this provider")
	ErrInvalidOIDCCode     = errors.New("accounts: invalid oidc result code")
	ErrIdentityNotFound    = errors.New("accounts: identity not found")
)

// The lifetimes of a flow (from its start to its callback) and of its
// result code (from the callback to its exchange).
const (
	FlowTTL   = 10 * time.Minute
	ResultTTL = 60 * time.Second
)

// flowRetention is how long a flow is kept after it expired.
const flowRetention = time.Hour

// Federation signs users in through identity providers, on the users'
// Service. Fields are dependencies, set once before use.
type Federation struct {
	Users     *Service
	Providers *federation.Registry
	// Origins are where a flow may return to.
	Origins federation.Origins
	// Key encrypts the PKCE verifiers of pending flows.
	Key   *datakey.Key
	Flows models.FlowStore
}

// FlowStart is what starts a flow.
type FlowStart struct {
	Provider   string
	RedirectTo string
	// CodeChallenge is the app's PKCE S256 challenge ("" for none; an
	// app must give one).
	CodeChallenge string
	Client        action.Client
	// Binding is the browser's oidc-flow cookie: the bindings of the
	// flows it started before, kept beside the new flow's own.
	Binding string
	// LinkUser and LinkSession are the caller of a link flow (uuid.Nil
	// for a sign-in).
	LinkUser, LinkSession uuid.UUID
}

// Started is a started flow: the provider's authorization URL and the
// value of the oidc-flow cookie that binds the flow (and the browser's
// earlier ones) to the browser ("" for an app's sign-in, which its PKCE
// challenge binds instead).
type Started struct {
	URL     string
	Binding string
}

var challengeRe = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// Start begins a flow of in.Provider. A web sign-in and every link flow
// are bound to the browser; an app's sign-in to the app's challenge.
func (f *Federation) Start(ctx context.Context, in FlowStart) (*Started, error) {
	if _, ok := f.Providers.Provider(in.Provider); !ok {
		return nil, ErrUnknownProvider
	}
	if !f.mayReturnTo(in.Client, in.RedirectTo) {
		return nil, ErrInvalidRedirect
	}
	if in.CodeChallenge != "" && !challengeRe.MatchString(in.CodeChallenge) ||
		in.CodeChallenge == "" && in.Client == action.App && in.LinkUser == uuid.Nil {
		return nil, ErrMissingChallenge
	}
	secrets, err := newFlowSecrets(in.Binding, in.Client == action.Web || in.LinkUser != uuid.Nil)
	if err != nil {
		return nil, err
	}
	url, err := f.Providers.AuthURL(ctx, in.Provider, secrets.state, secrets.nonce, secrets.verifier)
	if errors.Is(err, federation.ErrUnavailable) {
		return nil, fmt.Errorf("%w: %w", ErrProviderUnavailable, err)
	}
	if err != nil {
		return nil, err
	}
	flow, err := f.newFlow(in, secrets)
	if err != nil {
		return nil, err
	}
	if err := f.Flows.Insert(ctx, f.Users.DB, flow); err != nil {
		return nil, err
	}
	return &Started{URL: url, Binding: secrets.cookie}, nil
}

// mayReturnTo reports whether a flow of client may return to redirectTo:
// an allowed origin, and for an app an allowed app scheme only (its flow
// is bound to no browser, so a result code landing on a web page could be
// anyone's).
func (f *Federation) mayReturnTo(client action.Client, redirectTo string) bool {
	if client == action.App {
		return f.Origins.AllowsApp(redirectTo)
	}
	return f.Origins.Allows(redirectTo)
}

// flowSecrets are the random values of a flow, as handed out: binding is
// the flow's own browser binding ("" for an unbound flow), cookie the
// oidc-flow cookie that carries it.
type flowSecrets struct {
	state, nonce, verifier, binding, cookie string
}

// maxBindings is how many flows of one browser (tabs started one after
// the other) the oidc-flow cookie keeps bound at once.
const maxBindings = 4

// newFlowSecrets makes a flow's state and nonce (32 random bytes as hex
// each) and PKCE verifier, and, when bound, a new browser binding. The
// binding is always new: a value the browser sent may have been planted
// by a sibling subdomain, so the browser's own new flow is never bound to
// it. The well-formed values of the incoming cookie are kept after the new
// one, for the flows other tabs started; a planted value kept so still
// binds only the planter's own flow, which is why docs/security.md asks
// for sibling subdomains that are trusted (the cookie's name is fixed, so
// a __Host- prefix cannot close that).
func newFlowSecrets(cookie string, bound bool) (*flowSecrets, error) {
	s := &flowSecrets{verifier: oauth2.GenerateVerifier()}
	var err error
	if s.state, err = randomHex(); err != nil {
		return nil, err
	}
	if s.nonce, err = randomHex(); err != nil {
		return nil, err
	}
	if !bound {
		return s, nil
	}
	if s.binding, err = randomHex(); err != nil {
		return nil, err
	}
	kept := []string{s.binding}
	for _, v := range cookieBindings(cookie) {
		if len(kept) < maxBindings && v != s.binding {
			kept = append(kept, v)
		}
	}
	s.cookie = strings.Join(kept, ".")
	return s, nil
}

// cookieBindings are the well-formed bindings an oidc-flow cookie
// carries.
func cookieBindings(cookie string) []string {
	var out []string
	for _, v := range strings.SplitN(cookie, ".", maxBindings+1) {
		if hex64.MatchString(v) {
			out = append(out, v)
		}
	}
	return out
}

// boundHere reports whether a flow bound to the binding of hash (nil: an
// unbound flow) may go on in the browser whose oidc-flow cookie is
// cookie.
func boundHere(hash *string, cookie string) bool {
	if hash == nil {
		return true
	}
	found := false
	for _, v := range cookieBindings(cookie) {
		if sameHash(*hash, sha256Hex(v)) {
			found = true
		}
	}
	return found
}

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// randomHex returns 32 random bytes as 64 lowercase hex characters.
func randomHex() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// newFlow builds the row of a flow: hashes of what was handed out, and
// the verifier sealed under the data key, bound to the row.
func (f *Federation) newFlow(in FlowStart, s *flowSecrets) (*models.Flow, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	if f.Key == nil {
		return nil, errNoDataKey
	}
	ct, nonce, err := f.Key.Seal([]byte(s.verifier), verifierContext(id))
	if err != nil {
		return nil, err
	}
	now := f.Users.Now()
	flow := &models.Flow{
		ID: id, StateHash: sha256Hex(s.state), Provider: in.Provider, NonceHash: sha256Hex(s.nonce),
		VerifierCiphertext: ct, VerifierNonce: nonce, RedirectTo: in.RedirectTo, Client: string(in.Client),
		CodeChallenge: optional(in.CodeChallenge), ExpiresAt: now.Add(FlowTTL), CreatedAt: now,
	}
	if s.binding != "" {
		h := sha256Hex(s.binding)
		flow.BindingHash = &h
	}
	if in.LinkUser != uuid.Nil {
		flow.LinkUserID, flow.LinkSessionID = &in.LinkUser, &in.LinkSession
	}
	return flow, nil
}

// verifierContext binds a sealed PKCE verifier to its flow.
func verifierContext(flow uuid.UUID) []byte {
	return []byte("oidc_flows.verifier_ciphertext " + flow.String())
}

// PurgeFlows deletes the flows that expired more than an hour ago, and
// returns how many.
func (f *Federation) PurgeFlows(ctx context.Context) (int64, error) {
	n, err := f.Flows.Purge(ctx, f.Users.DB, f.Users.Now().Add(-flowRetention), 1000)
	if err != nil {
		return n, fmt.Errorf("purge oidc flows: %w", err)
	}
	return n, nil
}
