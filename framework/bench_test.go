package framework

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/actionkit/actionkit/action"
)

type benchLogin struct{}

type benchLoginArgs struct {
	Email    string `arg:"email" mod:"trim,lower" validate:"required,email,max=254"`
	Password string `arg:"password" validate:"required,max=128"`
	Remember bool   `arg:"remember"`
}

type benchLoginResult struct {
	Token string `json:"token"`
	User  struct {
		ID    string `json:"id"`
		Email string `json:"email"`
	} `json:"user"`
}

func (benchLogin) Spec() action.Spec {
	return action.Spec{Name: "V1BenchLogin", Path: "/v1/bench/login", Auth: action.Public}
}

func (benchLogin) Run(_ context.Context, _ *action.Request, in *benchLoginArgs) (*benchLoginResult, error) {
	out := &benchLoginResult{Token: "t"}
	out.User.ID, out.User.Email = "019a0000-0000-7000-8000-000000000000", in.Email
	return out, nil
}

type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

// BenchmarkPipeline measures the whole request pipeline of a small action
// with no database: decode, coerce, validate, run, respond.
func BenchmarkPipeline(b *testing.B) {
	f := New(Config{})
	Register(f, benchLogin{})
	body := `{"email":" Ada@Example.com ","password":"correct horse battery staple","remember":true}`
	for _, bc := range []struct{ name, method, target, body string }{
		{"json-body", http.MethodPost, "/v1/bench/login", body},
		{"query", http.MethodGet, "/v1/bench/login?email=ada%40example.com&password=pw&remember=true", ""},
		{"invalid", http.MethodGet, "/v1/bench/login?email=nope", ""},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchServe(b, f, bc.method, bc.target, bc.body, nil)
		})
	}
	// The baseline: a bare httprouter handler writing a fixed JSON body.
	b.Run("baseline-bare-router", func(b *testing.B) {
		router := httprouter.New()
		router.HandlerFunc(http.MethodPost, "/v1/bench/login", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"status":200,"success":true}`))
		})
		benchServe(b, router, http.MethodPost, "/v1/bench/login", body, nil)
	})
}

// benchServe serves one prepared request, with header added to it,
// repeatedly, resetting its body, so that only the handler's own work is
// measured.
func benchServe(b *testing.B, h http.Handler, method, target, body string, header http.Header) {
	b.ReportAllocs()
	src := strings.NewReader(body)
	r := httptest.NewRequest(method, target, io.NopCloser(src))
	r.ContentLength = int64(len(body)) // as a client's Content-Length declares it
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		r.Header[k] = v
	}
	w := &discardWriter{h: http.Header{}}
	for b.Loop() {
		src.Reset(body)
		clear(w.h)
		h.ServeHTTP(w, r)
	}
}

type benchRefresh struct{}

type benchRefreshArgs struct {
	RefreshToken string `arg:"refreshToken,lenient,secret,allownul"`
}

// benchAccount is the answer's account, shaped like actions/v1's
// AccountView: this package's tests cannot import actions/v1, which
// imports the framework.
type benchAccount struct {
	ID          string     `json:"id"`
	Email       string     `json:"email"`
	FirstName   string     `json:"firstName"`
	LastName    string     `json:"lastName"`
	Timezone    string     `json:"timezone"`
	Locale      string     `json:"locale"`
	IsActive    bool       `json:"isActive"`
	DeletedAt   *time.Time `json:"deletedAt"`
	LoginCount  int64      `json:"loginCount"`
	LastLoginAt *time.Time `json:"lastLoginAt"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
}

type benchRefreshResult struct {
	Token        string        `json:"token"`
	RefreshToken string        `json:"refreshToken,omitempty"`
	User         *benchAccount `json:"user,omitempty"`
}

func (benchRefresh) Spec() action.Spec {
	return action.Spec{Name: "V1BenchRefresh", Path: "/v1/bench/refresh", Auth: action.Public, SameSite: true}
}

func (benchRefresh) Run(_ context.Context, _ *action.Request, in *benchRefreshArgs) (*benchRefreshResult, error) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	return &benchRefreshResult{Token: strings.Repeat("t", 300), RefreshToken: in.RefreshToken, User: &benchAccount{
		ID: "019a0000-0000-7000-8000-000000000000", Email: "ada@example.com", Timezone: "UTC", Locale: "en",
		IsActive: true, LoginCount: 1, LastLoginAt: &at, CreatedAt: at, UpdatedAt: at}}, nil
}

// BenchmarkPipelineRefresh measures the pipeline of an action shaped like
// the server's refresh (one lenient secret argument in a JSON body, a
// session answer) as the server configures it: access log on at a level
// that drops it, an observer, and the request's client headers.
func BenchmarkPipelineRefresh(b *testing.B) {
	f := New(Config{
		Logger:    slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})),
		AccessLog: true,
		Observe:   func(Observation) {},
	})
	Register(f, benchRefresh{})
	body := `{"refreshToken":"` + strings.Repeat("ab", 32) + `"}`
	benchServe(b, f, http.MethodPost, "/v1/bench/refresh", body,
		http.Header{"X-Client": {"app"}, "User-Agent": {"bench/1.0"}})
}
