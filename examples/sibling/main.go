// Command sibling is a service of its own that embeds the actionkit
// framework and serves notes to the users of a bundled actionkit server.
// It holds no secret of the server: it verifies access tokens with the
// public keys the server publishes, so the server must sign with a key
// pair (ACCESS_TOKEN_ALG=EdDSA or ES256):
//
//	DATABASE_URL=postgres://postgres@127.0.0.1:5432/actionkit?sslmode=disable \
//	JWKS_URL=http://localhost:8000/.well-known/jwks.json PORT=8100 go run ./examples/sibling
//
// Then, with an access token from the bundled server's /v1/users/login:
//
//	curl -s localhost:8100/v1/notes/add -H 'Authorization: jwt-user <token>' -d '{"text":"hi"}'
//
// With OAUTH_ISSUER (the bundled server's PUBLIC_URL, OAUTH_PROVIDER on)
// and PUBLIC_URL (this service's origin, listed in the server's
// OAUTH_RESOURCES with its /mcp) it also accepts the server's OAuth access
// tokens and serves its tool add_note over MCP at /mcp: see README.md.
package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/actionkit/actionkit/auth/jwks"
	"github.com/actionkit/actionkit/examples/sibling/notes"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/models"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	if err := run(log); err != nil {
		log.Error("sibling stopped", "error", err)
		os.Exit(1)
	}
}

func run(log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	db, err := models.Open(ctx, getenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/actionkit?sslmode=disable"), 4)
	if err != nil {
		return err
	}
	defer db.Close()
	verifier, err := jwks.New(jwks.Config{
		URL:    getenv("JWKS_URL", "http://localhost:8000/.well-known/jwks.json"),
		Issuer: getenv("TOKEN_ISSUER", "actionkit"),
		Logger: log,
	})
	if err != nil {
		return err
	}
	if err := verifier.Refresh(ctx); err != nil {
		// Not fatal: the keys are fetched again when the first token comes.
		log.Warn("the server's keys could not be fetched yet", "error", err)
	}
	cfg := notes.Config{DB: db, Verifier: verifier, Logger: log}
	if issuer := os.Getenv("OAUTH_ISSUER"); issuer != "" {
		// The authorization server's metadata names its key set; this
		// service's resource is its own origin, its MCP endpoint /mcp.
		if cfg.OAuth, err = framework.DiscoverOAuth(ctx, nil, issuer); err != nil {
			return err
		}
		cfg.OAuth.Resource = getenv("PUBLIC_URL", "http://localhost:8100")
		cfg.OAuth.MCPPath = "/mcp"
	}
	h, err := notes.New(cfg)
	if err != nil {
		return err
	}
	srv := &http.Server{Addr: ":" + getenv("PORT", "8100"), Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Info("sibling listening", "addr", srv.Addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func getenv(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
