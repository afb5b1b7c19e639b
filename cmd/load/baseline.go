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

// baselineHandler serves the two baselines: GET /bare answers a fixed small
// JSON object; GET /read verifies an HS256 access token with golang-jwt and
// reads its subject with one primary-key SELECT, a prepared statement as
// the server's are: the least a profile read can do.
func baselineHandler(db *sqlx.DB, secret []byte, issuer string) (http.Handler, error) {
	var selectUser *sqlx.Stmt
	if db != nil {
		var err error
		if selectUser, err = db.Preparex(baselineSelect); err != nil {
			return nil, err
		}
	}
	parser := jwt.NewParser(jwt.WithValidMethods([]string{"HS256"}), jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired(), jwt.WithLeeway(30*time.Second))
	key := func(*jwt.Token) (any, error) { return secret, nil }
	r := httprouter.New()
	r.GET("/bare", func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bareBody)
	})
	r.GET("/read", func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		var claims jwt.RegisteredClaims
		token, ok := strings.CutPrefix(req.Header.Get("Authorization"), "jwt-user ")
		if _, err := parser.ParseWithClaims(token, &claims, key); !ok || err != nil {
			http.Error(w, `{"status":401,"success":false}`, http.StatusUnauthorized)
			return
		}
		var u baselineUser
		if err := selectUser.GetContext(req.Context(), &u, claims.Subject); err != nil {
			status := http.StatusInternalServerError
			if errors.Is(err, sql.ErrNoRows) {
				status = http.StatusUnauthorized
			}
			http.Error(w, fmt.Sprintf(`{"status":%d,"success":false}`, status), status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(struct {
			Status  int           `json:"status"`
			Success bool          `json:"success"`
			User    *baselineUser `json:"user"`
		}{200, true, &u})
	})
	return r, nil
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
	if err := fs.Parse(args); err != nil {
		return err
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
	h, err := baselineHandler(db, []byte(secret), *issuer)
	if err != nil {
		return err
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

// baselineScenario returns the load of a baseline: "bare" or "pk".
func baselineScenario(name string) *scenario {
	shared := func(ctx context.Context, t *target, workers []*worker) error {
		users, err := t.pool.ensure(ctx, len(workers))
		if err != nil {
			return err
		}
		assignUsers(workers, users)
		return nil
	}
	if name == "bare" {
		return &scenario{name: name, prepare: func(context.Context, *target, []*worker) error { return nil },
			op: func(ctx context.Context, w *worker) error {
				_, err := w.call(ctx, "bare", http.MethodGet, "/bare", nil)
				return err
			}}
	}
	return &scenario{name: name, prepare: shared, op: func(ctx context.Context, w *worker) error {
		_, err := w.call(ctx, "pk", http.MethodGet, "/read", nil, authHeader(w.user)...)
		return err
	}}
}
