// Package notes is a sibling service that embeds the actionkit framework.
// It declares two actions of its own and serves them to the users of the
// bundled server: it verifies their access tokens with the public keys the
// server publishes (no shared secret: it could not mint a token), and
// checks each token's session and version against the shared database, so
// a logout on the bundled server ends access here too. It has none of the
// user actions.
//
// With OAuth configured it is also an OAuth protected resource of the
// bundled server's authorization server (CONTRACT §20): adding a note
// accepts the server's OAuth access tokens with scope posts:write issued
// for this service, and is the MCP tool add_note at /mcp, so that a
// third-party application or an AI agent can write notes on a user's
// behalf without the user's own session.
package notes

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/accesstoken"
	"github.com/actionkit/actionkit/auth/jwks"
	"github.com/actionkit/actionkit/framework"
)

// Config is what the service needs.
type Config struct {
	// DB is the bundled server's database, read for the user and its
	// session.
	DB *sqlx.DB
	// Verifier checks access tokens with the bundled server's published
	// keys (its /.well-known/jwks.json and TOKEN_ISSUER).
	Verifier *jwks.Verifier
	Logger   *slog.Logger
	// OAuth, when set, makes the service a protected resource of the
	// bundled server's authorization server: framework.DiscoverOAuth of
	// its issuer, with this service's Resource (its origin) and MCPPath.
	// Its Sessions is set here: a token is refused once its session ends.
	OAuth *framework.OAuth
}

// New returns the service's HTTP handler.
func New(cfg Config) (http.Handler, error) {
	if cfg.DB == nil || cfg.Verifier == nil {
		return nil, errors.New("notes: a database and a verifier are needed")
	}
	var oauth *framework.OAuth
	if cfg.OAuth != nil {
		o := *cfg.OAuth
		o.Sessions = sessions{load: loadUser(cfg.DB)}
		if o.ResourceName == "" {
			o.ResourceName = "notes"
		}
		oauth = &o
	}
	f := framework.New(framework.Config{
		Logger:        cfg.Logger,
		Authenticator: auth.NewAuthenticator(cfg.Verifier.Tokens(), auth.Owner{Type: "user", Load: loadUser(cfg.DB)}),
		OAuth:         oauth,
	})
	store := &store{notes: map[uuid.UUID][]Note{}}
	framework.Register(f, &Add{store: store})
	framework.Register(f, &List{store: store})
	return f, nil
}

// loadUser reads what the authenticator checks, in one statement: the user
// exists and may authenticate, its current token version, and that the
// token's session (its sid) is live, so that a logout in the bundled
// server ends the token here too.
func loadUser(db *sqlx.DB) auth.Loader {
	return func(ctx context.Context, id, session uuid.UUID, _ action.Needs) (auth.Principal, error) {
		var row struct {
			TokenVersion int64     `db:"token_version"`
			Locale       string    `db:"locale"`
			ExpiresAt    time.Time `db:"expires_at"`
		}
		err := db.GetContext(ctx, &row, `SELECT u.token_version, u.locale, s.expires_at
			FROM users u JOIN user_sessions s
				ON s.chain_id = $2 AND s.revoked_at IS NULL AND s.user_id = u.id AND s.expires_at > now()
			WHERE u.id = $1 AND u.is_active AND u.deleted_at IS NULL`, id, session)
		if errors.Is(err, sql.ErrNoRows) {
			return auth.Principal{}, auth.ErrUnknownOwner
		}
		return auth.Principal{TokenVersion: row.TokenVersion, Locale: row.Locale, SessionExpiresAt: row.ExpiresAt}, err
	}
}

// sessions resolves the caller of an OAuth access token from the user's
// session it names (its sid), read at every request like a first-party
// token's: a token of an ended session, or without a session (a client's
// own), is refused.
type sessions struct{ load auth.Loader }

// OAuthCaller implements framework.OAuthSessions.
func (s sessions) OAuthCaller(ctx context.Context, owner action.OwnerType, tok *accesstoken.Token, needs action.Needs) (*action.Caller, error) {
	id, err1 := uuid.Parse(tok.Subject)
	sid, err2 := uuid.Parse(tok.SessionID)
	if owner != "user" || err1 != nil || err2 != nil {
		return nil, nil
	}
	p, err := s.load(ctx, id, sid, needs)
	if errors.Is(err, auth.ErrUnknownOwner) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &action.Caller{Type: owner, ID: id, SessionID: sid, SessionExpiresAt: p.SessionExpiresAt, Locale: p.Locale}, nil
}

// ScopeNotes is the scope that adds notes. A sibling's scopes must be
// ones its authorization server supports, and the bundled server
// supports the scopes of its own actions: posts:write, "write in the
// user's name", covers notes too.
const ScopeNotes = "posts:write"

// Note is one note of a user.
type Note struct {
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"createdAt"`
}

// store keeps notes in memory: this example is about the framework, not
// about storage.
type store struct {
	mu    sync.Mutex
	notes map[uuid.UUID][]Note
}

// Add saves a note of the caller.
type Add struct{ store *store }

// AddArgs are the arguments of Add.
type AddArgs struct {
	Text string `arg:"text" mod:"trim" validate:"required,max=280"`
}

// NoteResult carries one note.
type NoteResult struct {
	Note Note `json:"note"`
}

// Spec declares V1AddNote.
func (*Add) Spec() action.Spec {
	return action.Spec{Name: "V1AddNote", Path: "/v1/notes/add", Summary: "Add a note", Auth: action.Owner("user"),
		Status: http.StatusCreated, Scopes: []string{ScopeNotes},
		Tool: &action.Tool{Name: "add_note", Description: "Save a short note (at most 280 characters) for the signed-in user; the answer holds the note and when it was saved."}}
}

// Run saves the note.
func (a *Add) Run(_ context.Context, req *action.Request, in *AddArgs) (*NoteResult, error) {
	n := Note{Text: in.Text, CreatedAt: time.Now().UTC()}
	a.store.mu.Lock()
	defer a.store.mu.Unlock()
	a.store.notes[req.Caller.ID] = append(a.store.notes[req.Caller.ID], n)
	return &NoteResult{Note: n}, nil
}

// List returns the caller's notes.
type List struct{ store *store }

// ListResult carries the caller's notes.
type ListResult struct {
	UserID uuid.UUID `json:"userId"`
	Notes  []Note    `json:"notes"`
}

// Spec declares V1ListNotes.
func (*List) Spec() action.Spec {
	return action.Spec{Name: "V1ListNotes", Path: "/v1/notes/list", Auth: action.Owner("user")}
}

// Run lists the notes.
func (l *List) Run(_ context.Context, req *action.Request, _ *struct{}) (*ListResult, error) {
	l.store.mu.Lock()
	defer l.store.mu.Unlock()
	return &ListResult{UserID: req.Caller.ID, Notes: append([]Note{}, l.store.notes[req.Caller.ID]...)}, nil
}
