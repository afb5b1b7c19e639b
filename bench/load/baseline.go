package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jmoiron/sqlx"
	"github.com/julienschmidt/httprouter"

	"github.com/actionkit/actionkit/models"
)

// bareBody is the fixed answer of the bare handler.
var bareBody = []byte(`{"status":200,"success":true}` + "\n")

// baselineUser is the user object the baseline reads: the columns the
// server's read answers with.
type baselineUser struct {
	ID          string     `db:"id" json:"id"`
	Email       string     `db:"email" json:"email"`
	FirstName   string     `db:"first_name" json:"firstName"`
	LastName    string     `db:"last_name" json:"lastName"`
	Timezone    string     `db:"timezone" json:"timezone"`
	Locale      string     `db:"locale" json:"locale"`
	IsActive    bool       `db:"is_active" json:"isActive"`
	DeletedAt   *time.Time `db:"deleted_at" json:"deletedAt"`
	LoginCount  int64      `db:"login_count" json:"loginCount"`
	LastLoginAt *time.Time `db:"last_login_at" json:"lastLoginAt"`
	CreatedAt   time.Time  `db:"created_at" json:"createdAt"`
	UpdatedAt   time.Time  `db:"updated_at" json:"updatedAt"`
}

const baselineSelect = `SELECT id, email, first_name, last_name, timezone, locale, is_active, deleted_at,
	login_count, last_login_at, created_at, updated_at FROM users WHERE id = $1`

// baselineSessionSelect reads the user by primary key and, in the same
// statement, the expiry of the token's session: its row that is not
// revoked, found through the partial index on chain_id (the expiry is
// compared in Go, as the server does, so the planner keeps that index). It
// is the least the server's authenticated read must do since a session is
// checked on every request (a revoked or expired session refuses its access
// tokens at once).
const baselineSessionSelect = `SELECT id, email, first_name, last_name, timezone, locale, is_active, deleted_at,
	login_count, last_login_at, created_at, updated_at,
	(SELECT s.expires_at FROM user_sessions s WHERE s.chain_id = $2 AND s.revoked_at IS NULL
		AND s.user_id = users.id LIMIT 1) AS session_expires_at
	FROM users WHERE id = $1`

// baseline is one of the minimal programs measured beside the server, at
// the same concurrency, in one process ("load baseline"). To add one, add
// an entry to baselines: its path, whether it needs the user's access
// token, what it shows, and its handler; the bench measures a GET baseline
// with wrk, like the server's read, and the report gives it a row and a
// "vs" column. A refresh baseline (Refresh set) is a POST that rotates a
// chain, each answer giving the next request's token: this tool's virtual
// users drive it beside the server's refresh (compareRefresh).
type baseline struct {
	Name    string // in the results and the report
	Path    string // path on the baseline server: GET, or POST with Refresh
	Auth    bool   // whether requests carry the user's access token
	Refresh bool   // a POST rotating the refresh token in its body
	About   string // what it does, for the report
	// handler returns the baseline's handler, preparing what it needs
	// (db is nil in unit tests: no statement is prepared).
	handler func(b *baselineServer) (httprouter.Handle, error)
}

// baselines are the baselines, in the order they are measured and
// reported.
func baselines() []baseline {
	return []baseline{
		{Name: "bare", Path: "/bare", About: "an httprouter handler answering a fixed small JSON object", handler: bareHandler},
		{Name: "pk", Path: "/read", Auth: true, About: "golang-jwt HS256 verification of the server's own access token plus " +
			"`SELECT ... FROM users WHERE id = $1` (a prepared statement, as the server's are) through a pool of 8 built by " +
			"the server's `models.Open`, answered as JSON: the least a profile read could do before sessions were checked", handler: pkHandler},
		{Name: "session", Path: "/read-session", Auth: true, About: "`pk` with the session check: golang-jwt HS256 verification plus one " +
			"prepared statement reading the user by primary key and, in the same statement, its token's session (`sid`) by the partial " +
			"index on `user_sessions.chain_id`, answered as JSON: the least a profile read does now that every request checks its session",
			handler: sessionHandler},
		{Name: "rotate", Path: rotatePath, Refresh: true, About: rotateAbout, handler: rotateHandler},
	}
}

// wrkBaselines are the baselines wrk measures at every level of the plan
// (every one but the refresh baseline).
func wrkBaselines() []baseline {
	var out []baseline
	for _, b := range baselines() {
		if !b.Refresh {
			out = append(out, b)
		}
	}
	return out
}

// baselinePath returns the path of the baseline called name.
func baselinePath(name string) string {
	for _, b := range baselines() {
		if b.Name == name {
			return b.Path
		}
	}
	return ""
}

// isBaseline reports whether name is a baseline's.
func isBaseline(name string) bool {
	for _, b := range baselines() {
		if b.Name == name {
			return true
		}
	}
	return false
}

// baselineServer is what the baselines' handlers share.
type baselineServer struct {
	db     *sqlx.DB // nil in unit tests
	parser *jwt.Parser
	secret []byte
	issuer string
	rotate rotateConfig
}

// baselineClaims are the claims the baselines read.
type baselineClaims struct {
	jwt.RegisteredClaims
	Sid string `json:"sid"`
}

// verify checks the request's access token as the server does (HS256, the
// issuer, an expiry) and returns its claims.
func (b *baselineServer) verify(req *http.Request) (*baselineClaims, bool) {
	var claims baselineClaims
	token, ok := strings.CutPrefix(req.Header.Get("Authorization"), "jwt-user ")
	if !ok {
		return nil, false
	}
	_, err := b.parser.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return b.secret, nil })
	return &claims, err == nil
}

// prepare prepares query, unless there is no database.
func (b *baselineServer) prepare(query string) (*sqlx.Stmt, error) {
	if b.db == nil {
		return nil, nil
	}
	return b.db.Preparex(query)
}

// fail answers status with a small JSON error.
func fail(w http.ResponseWriter, status int) {
	http.Error(w, fmt.Sprintf(`{"status":%d,"success":false}`, status), status)
}

// bareHandler answers a fixed body.
func bareHandler(*baselineServer) (httprouter.Handle, error) {
	return func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bareBody)
	}, nil
}

// pkHandler verifies the access token and reads its subject with one
// primary-key SELECT.
func pkHandler(b *baselineServer) (httprouter.Handle, error) {
	return readHandler(b, baselineSelect, func(c *baselineClaims) []any { return []any{c.Subject} })
}

// sessionHandler verifies the access token and reads its subject and its
// session's liveness in one statement.
func sessionHandler(b *baselineServer) (httprouter.Handle, error) {
	return readHandler(b, baselineSessionSelect, func(c *baselineClaims) []any { return []any{c.Subject, c.Sid} })
}

// readHandler verifies the access token, runs query with the arguments
// args takes from its claims, and answers the user it read (a user whose
// session is not live, when the query reads it, is refused).
func readHandler(b *baselineServer, query string, args func(*baselineClaims) []any) (httprouter.Handle, error) {
	stmt, err := b.prepare(query)
	if err != nil {
		return nil, err
	}
	return func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		claims, ok := b.verify(req)
		if !ok {
			fail(w, http.StatusUnauthorized)
			return
		}
		var u struct {
			baselineUser
			SessionExpiresAt *time.Time `db:"session_expires_at" json:"-"`
		}
		err := stmt.GetContext(req.Context(), &u, args(claims)...)
		if err != nil || (query == baselineSessionSelect && (u.SessionExpiresAt == nil || !u.SessionExpiresAt.After(time.Now()))) {
			status := http.StatusInternalServerError
			if err == nil || errors.Is(err, sql.ErrNoRows) {
				status = http.StatusUnauthorized
			}
			fail(w, status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(struct {
			Status  int           `json:"status"`
			Success bool          `json:"success"`
			User    *baselineUser `json:"user"`
		}{200, true, &u.baselineUser})
	}, nil
}

// baselineHandler serves every baseline on its path.
func baselineHandler(db *sqlx.DB, secret []byte, issuer string, rc rotateConfig) (http.Handler, error) {
	b := &baselineServer{db: db, secret: secret, issuer: issuer, rotate: rc, parser: jwt.NewParser(jwt.WithValidMethods([]string{"HS256"}),
		jwt.WithIssuer(issuer), jwt.WithExpirationRequired(), jwt.WithLeeway(30*time.Second))}
	r := httprouter.New()
	for _, bl := range baselines() {
		h, err := bl.handler(b)
		if err != nil {
			return nil, fmt.Errorf("baseline %s: %w", bl.Name, err)
		}
		if bl.Refresh {
			r.POST(bl.Path, h)
		} else {
			r.GET(bl.Path, h)
		}
	}
	return r, nil
}

// servePprof serves Go's profiler on addr, a loopback address, in the
// background: to compare the baseline's profile with the server's.
func servePprof(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err == nil {
		err = checkLoopbackHost(host)
	}
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() { _ = http.Serve(ln, mux) }()
	return nil
}

// baselineMain is "load baseline": it serves the baselines on a loopback
// port until SIGINT or SIGTERM, printing {"msg":"baseline listening",
// "addr":...} once it accepts connections. The database comes from
// DATABASE_URL and the token secret from ACCESS_TOKEN_SECRET, as for the
// server; the pool is built by the server's own models.Open.
func baselineMain(args []string) error {
	fs := flag.NewFlagSet("baseline", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "loopback address to serve on")
	conns := fs.Int("db-max-conns", 8, "PostgreSQL pool size (the server's DB_MAX_CONNS)")
	issuer := fs.String("issuer", "actionkit", "required iss claim (the server's TOKEN_ISSUER)")
	pprofAddr := fs.String("pprof", "", "serve Go's profiler on this loopback address (default: none)")
	var rc rotateConfig
	fs.DurationVar(&rc.AccessTTL, "access-ttl", 15*time.Minute, "rotate: access token lifetime (the server's ACCESS_TOKEN_EXPIRES_IN)")
	fs.DurationVar(&rc.RefreshTTL, "refresh-ttl", 60*24*time.Hour, "rotate: refresh token lifetime (the server's REFRESH_TOKEN_EXPIRES_IN)")
	fs.IntVar(&rc.Budget.Max, "refresh-budget", 10, "rotate: refreshes of a chain per window (the server's AUTH_RATE_LIMIT_MAX)")
	fs.DurationVar(&rc.Budget.Window, "refresh-window", 15*time.Minute, "rotate: the budget's window (the server's AUTH_RATE_LIMIT_WINDOW)")
	fs.DurationVar(&rc.Burn, "burn", 0, "rotate: busy work added to every rotation, to calibrate the comparison (default: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if rc.Burn < 0 || rc.Burn > time.Millisecond {
		return fmt.Errorf("baseline: -burn %s: want 0 to 1ms", rc.Burn)
	}
	host, _, err := net.SplitHostPort(*listen)
	if err == nil {
		err = checkLoopbackHost(host)
	}
	if err != nil {
		return err
	}
	dsn, secret := os.Getenv("DATABASE_URL"), os.Getenv("ACCESS_TOKEN_SECRET")
	if dsn == "" || len(secret) < 32 {
		return errors.New("baseline: DATABASE_URL and ACCESS_TOKEN_SECRET (32+ bytes) are required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	db, err := models.Open(ctx, dsn, *conns)
	if err != nil {
		return err
	}
	defer db.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	h, err := baselineHandler(db, []byte(secret), *issuer, rc)
	if err != nil {
		return err
	}
	if *pprofAddr != "" {
		if err := servePprof(*pprofAddr); err != nil {
			return err
		}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	line, _ := json.Marshal(map[string]string{"msg": "baseline listening", "addr": ln.Addr().String()})
	fmt.Println(string(line))
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
