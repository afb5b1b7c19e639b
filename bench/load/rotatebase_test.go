package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// TestRotateBaselineSameContract: the rotate baseline does the work the
// contract asks of the server's refresh: it reads the cookie before the
// body, stores the User-Agent in the new row, and answers with the
// refresh cookie, X-Request-Id, Cache-Control: no-store and nosniff.
func TestRotateBaselineSameContract(t *testing.T) {
	dsn := pgtest.NewDSN(t)
	ctx := context.Background()
	db, err := models.Open(ctx, dsn, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// One user with a live app session, whose token is known.
	raw, hash, err := auth.NewOpaqueToken()
	if err != nil {
		t.Fatal(err)
	}
	userID, sessionID := uuid.New(), uuid.New()
	now := time.Now()
	if _, err := db.ExecContext(ctx, `INSERT INTO users (id, email, salt, first_name, last_name, timezone, locale)
		VALUES ($1, 'rotate@example.com', 'salt', 'R', 'B', 'UTC', 'en')`, userID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO user_sessions (id, user_id, refresh_token_hash, expires_at, chain_id, login_at, client, platform)
		VALUES ($1, $2, $3, $4, $1, $5, 'app', 'bench')`, sessionID, userID, hash, now.Add(time.Hour), now); err != nil {
		t.Fatal(err)
	}
	const secret = "0123456789abcdef0123456789abcdef"
	h, err := baselineHandler(db, []byte(secret), "actionkit",
		rotateConfig{AccessTTL: time.Minute, RefreshTTL: 24 * time.Hour, Budget: models.RefreshBudget{Max: 10, Window: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	// The body names a token that does not exist; the cookie's wins.
	req := httptest.NewRequest(http.MethodPost, rotatePath, strings.NewReader(`{"refreshToken":"`+strings.Repeat("b", 64)+`"}`))
	req.AddCookie(&http.Cookie{Name: rotateCookie, Value: raw})
	req.Header.Set("User-Agent", "bench-agent/1.0\x00")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("rotation by cookie: %d %s", rec.Code, rec.Body)
	}
	hdr := rec.Header()
	if hdr.Get("Cache-Control") != "no-store" || hdr.Get("X-Content-Type-Options") != "nosniff" || hdr.Get("X-Request-Id") == "" {
		t.Errorf("headers %v: want no-store, nosniff and a request id", hdr)
	}
	var cookie *http.Cookie
	for _, c := range rec.Result().Cookies() {
		if c.Name == rotateCookie {
			cookie = c
		}
	}
	if cookie == nil || !auth.WellFormedOpaqueToken(cookie.Value) || cookie.Value == raw || !cookie.HttpOnly || !cookie.Secure ||
		cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" || cookie.MaxAge != int((24*time.Hour).Seconds()) {
		t.Fatalf("refresh cookie %+v: want the successor, HttpOnly, Secure, SameSite=Strict, Path=/, 24 h", cookie)
	}
	// The access token is the server's: it verifies with the server's
	// auth.Tokens as an app token of the user's session.
	var answer struct {
		Token        string `json:"token"`
		RefreshToken string `json:"refreshToken"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
		t.Fatal(err)
	}
	verifier, err := auth.NewTokens([]byte(secret), "actionkit", time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := verifier.Parse(action.OwnerType(models.UserTables.Type), answer.Token)
	if err != nil || claims.Subject != userID || claims.SessionID != sessionID || claims.Client != action.App ||
		answer.RefreshToken != cookie.Value {
		t.Errorf("access token %+v, %v; refresh token %q: want the user's app session and the cookie's token", claims, err, answer.RefreshToken)
	}
	var ua string
	if err := db.GetContext(ctx, &ua, `SELECT user_agent::text FROM user_sessions WHERE refresh_token_hash = $1`,
		auth.HashOpaqueToken(cookie.Value)); err != nil {
		t.Fatal(err)
	}
	if ua != `{"raw": "bench-agent/1.0"}` {
		t.Errorf("stored user agent %s, want the server's form without the NUL", ua)
	}
	// A second answer has a request id of its own.
	rec2 := httptest.NewRecorder()
	h.ServeHTTP(rec2, httptest.NewRequest(http.MethodPost, rotatePath, strings.NewReader(`{"refreshToken":"x"}`)))
	if rec2.Code != http.StatusUnauthorized || rec2.Header().Get("X-Request-Id") == hdr.Get("X-Request-Id") || rec2.Header().Get("X-Request-Id") == "" {
		t.Errorf("second answer %d, request ids %q and %q: want 401 and two ids", rec2.Code, hdr.Get("X-Request-Id"), rec2.Header().Get("X-Request-Id"))
	}
}

func TestUserAgentDoc(t *testing.T) {
	if userAgentDoc("") != nil {
		t.Error("no User-Agent: want NULL")
	}
	long := userAgentDoc(strings.Repeat("é", 300)) // 600 bytes
	if want := `{"raw":"` + strings.Repeat("é", 256) + `"}`; string(long) != want {
		t.Errorf("long User-Agent stored as %d bytes, want 512 bytes of whole runes", len(long))
	}
}
