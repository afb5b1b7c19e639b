package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/julienschmidt/httprouter"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// rotatePath is where the rotate baseline answers: POST, the refresh token
// in the JSON body, as the server's /v1/users/refresh takes it from an app.
const rotatePath = "/rotate"

// rotateAbout says what the rotate baseline does, for the report.
const rotateAbout = "the least a program can do for the server's refresh under the same contract: read the token from the " +
	"`jwt-user-refresh` cookie or else `refreshToken` in the JSON body, hash it " +
	"as the server does (`auth.HashOpaqueToken`), rotate its session with the server's own one statement " +
	"(`models.SessionStore.RotateLive`, prepared, through a pool of 8 built by `models.Open`, whose waiters are served in " +
	"the order they came: the owner and the session " +
	"locked, the successor inserted, the old row marked rotated, in one implicit transaction and one commit), mint a new " +
	"opaque refresh token and an HS256 access token with the server's own minter (`auth.Tokens`, the same claims and " +
	"code), store the User-Agent in the new " +
	"row as the server does, and answer JSON shaped like the server's (token, refreshToken, user) with the headers the " +
	"contract and the server put on it (the refresh cookie, `X-Request-Id`, `Cache-Control: no-store`, " +
	"`X-Content-Type-Options: nosniff`). It shares the bench's database and rotates chains the server issued at " +
	"registration, each side its own: no framework, no rate limiter, no metrics, no logging"

// rotateConfig is what the rotate baseline needs besides the database:
// the server's settings that shape a rotation and its answer.
type rotateConfig struct {
	AccessTTL  time.Duration        // ACCESS_TOKEN_EXPIRES_IN
	RefreshTTL time.Duration        // REFRESH_TOKEN_EXPIRES_IN
	Budget     models.RefreshBudget // AUTH_RATE_LIMIT_MAX and AUTH_RATE_LIMIT_WINDOW
	// Burn is busy work added to every rotation, a calibration rather than
	// a setting of the server: how much a program's extra CPU a refresh
	// costs the comparison on this machine.
	Burn time.Duration
}

// rotateAccount is the account in the answer: the fields of the server's
// AccountView, under the same names. It is a copy on purpose: importing
// actions/v1 would bring the framework and its dependencies into the load
// tool's module.
type rotateAccount struct {
	ID              uuid.UUID  `json:"id"`
	Email           string     `json:"email"`
	FirstName       string     `json:"firstName"`
	LastName        string     `json:"lastName"`
	Timezone        string     `json:"timezone"`
	Locale          string     `json:"locale"`
	IsActive        bool       `json:"isActive"`
	DeletedAt       *time.Time `json:"deletedAt"`
	LoginCount      int64      `json:"loginCount"`
	LastLoginAt     *time.Time `json:"lastLoginAt"`
	CreatedAt       time.Time  `json:"createdAt"`
	UpdatedAt       time.Time  `json:"updatedAt"`
	EmailVerifiedAt *time.Time `json:"emailVerifiedAt"`
	MFAEnabled      bool       `json:"mfaEnabled"`
	HasPassword     bool       `json:"hasPassword"`
}

// rotateAnswer is the answer of a rotation, shaped like the server's.
type rotateAnswer struct {
	Status       int            `json:"status"`
	Success      bool           `json:"success"`
	Token        string         `json:"token"`
	RefreshToken string         `json:"refreshToken,omitempty"`
	User         *rotateAccount `json:"user"`
}

// rotateHandler rotates the refresh token in the body: 401 for a token
// that is malformed or names no live session of a usable owner (the
// server then takes its locked transaction, which the bench's chains
// never need), 500 for anything else.
func rotateHandler(b *baselineServer) (httprouter.Handle, error) {
	sessions := models.NewSessionStore(models.UserTables)
	if b.db != nil {
		sessions = sessions.Prepared(b.db)
	}
	owner := action.OwnerType(models.UserTables.Type)
	cfg := b.rotate
	ids, err := newRequestIDs()
	if err != nil {
		return nil, err
	}
	tokens, err := auth.NewTokens(b.secret, b.issuer, cfg.AccessTTL, nil)
	if err != nil {
		return nil, err
	}
	return func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		if cfg.Burn > 0 {
			spin(cfg.Burn)
		}
		w.Header()["X-Request-Id"] = []string{ids.next()}
		var in struct {
			RefreshToken string `json:"refreshToken"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, req.Body, 4096)).Decode(&in); err != nil {
			fail(w, http.StatusBadRequest)
			return
		}
		if c, err := req.Cookie(rotateCookie); err == nil {
			in.RefreshToken = c.Value // the cookie first, as the server reads it
		}
		if !auth.WellFormedOpaqueToken(in.RefreshToken) || b.db == nil {
			fail(w, http.StatusUnauthorized)
			return
		}
		now := time.Now()
		raw, hash, err := auth.NewOpaqueToken()
		if err != nil {
			fail(w, http.StatusInternalServerError)
			return
		}
		id, err := uuid.NewV7()
		if err != nil {
			fail(w, http.StatusInternalServerError)
			return
		}
		next := &models.Session{ID: id, RefreshTokenHash: hash, ExpiresAt: now.Add(cfg.RefreshTTL), IPAddress: remoteIP(req),
			UserAgent: userAgentDoc(req.UserAgent())}
		acc, err := sessions.RotateLive(req.Context(), b.db, auth.HashOpaqueToken(in.RefreshToken), next, now, cfg.Budget)
		if err != nil {
			status := http.StatusInternalServerError
			if errors.Is(err, models.ErrNotFound) {
				status = http.StatusUnauthorized
			}
			fail(w, status)
			return
		}
		how := auth.Authentication{Methods: next.Methods, Time: next.AuthenticatedAt}
		token, _, err := tokens.IssueAuthenticated(owner, acc.ID, next.SessionID, acc.TokenVersion, action.Client(next.Client), how)
		if err != nil {
			fail(w, http.StatusInternalServerError)
			return
		}
		out := rotateAnswer{Status: http.StatusOK, Success: true, Token: token, User: &rotateAccount{
			ID: acc.ID, Email: acc.Email, FirstName: acc.FirstName, LastName: acc.LastName, Timezone: acc.Timezone,
			Locale: acc.Locale, IsActive: acc.IsActive, DeletedAt: acc.DeletedAt, LoginCount: acc.LoginCount,
			LastLoginAt: acc.LastLoginAt, CreatedAt: acc.CreatedAt, UpdatedAt: acc.UpdatedAt,
			EmailVerifiedAt: acc.EmailVerifiedAt, MFAEnabled: acc.MFAEnabled, HasPassword: acc.HasPassword}}
		if action.Client(next.Client) == action.App {
			out.RefreshToken = raw
		}
		http.SetCookie(w, &http.Cookie{Name: rotateCookie, Value: raw, Path: "/", MaxAge: int(cfg.RefreshTTL.Seconds()),
			HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		_ = json.NewEncoder(w).Encode(out)
	}, nil
}

// spin keeps the goroutine busy for d of wall time, reading the clock
// (no system call, no allocation): busy work, not a sleep.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// rotateCookie is the server's refresh cookie of users (CONTRACT.md: set
// on every refresh, read before the body).
const rotateCookie = "jwt-user-refresh"

// requestIDs issues X-Request-Id values as the server does: a random
// prefix of the process and a counter.
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

// newRequestIDs returns a source with a fresh random prefix.
func newRequestIDs() (*requestIDs, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return &requestIDs{prefix: hex.EncodeToString(b) + "-"}, nil
}

// next is the next request id.
func (s *requestIDs) next() string { return s.prefix + strconv.FormatUint(s.n.Add(1), 10) }

// userAgentDoc is the User-Agent header as the server stores it in the
// session row: {"raw": ...}, valid UTF-8 without NUL, at most 512 bytes;
// nil (NULL) without one. It repeats accounts' userAgentJSON on purpose:
// importing accounts would bring its whole dependency tree (WebAuthn,
// OpenID Connect, mail, queues) into the load tool's module.
func userAgentDoc(ua string) []byte {
	if ua == "" {
		return nil
	}
	ua = strings.ReplaceAll(strings.ToValidUTF8(ua, "\uFFFD"), "\x00", "")
	for len(ua) > 512 {
		_, size := utf8.DecodeLastRuneInString(ua)
		ua = ua[:len(ua)-size]
	}
	doc, _ := json.Marshal(struct {
		Raw string `json:"raw"`
	}{ua})
	return doc
}

// remoteIP is the request's peer address without its port, as the server
// records it in the session row.
func remoteIP(req *http.Request) *string {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil || host == "" {
		return nil
	}
	return &host
}
