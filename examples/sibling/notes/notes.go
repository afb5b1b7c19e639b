// Package notes is a sibling service that embeds the actionkit framework.
// It declares two actions of its own and serves them to the users of the
// bundled server: it verifies their access tokens with the public keys the
// server publishes (no shared secret: it could not mint a token), and
// checks each token's session and version against the shared database, so
// a logout on the bundled server ends access here too. It has none of the
// user actions.
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
}

// New returns the service's HTTP handler.
func New(cfg Config) (http.Handler, error) {
	if cfg.DB == nil || cfg.Verifier == nil {
		return nil, errors.New("notes: a database and a verifier are needed")
	}
	f := framework.New(framework.Config{
		Logger:        cfg.Logger,
		Authenticator: auth.NewAuthenticator(cfg.Verifier.Tokens(), auth.Owner{Type: "user", Load: loadUser(cfg.DB)}),
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
	return action.Spec{Name: "V1AddNote", Path: "/v1/notes/add", Auth: action.Owner("user"), Status: http.StatusCreated}
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
