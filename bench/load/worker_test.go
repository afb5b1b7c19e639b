package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestWorkerCallRecordsFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			_, _ = w.Write([]byte(`{"status":200,"success":true}`))
		case "/busy":
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"status":503,"success":false,"error":"SERVICE_BUSY"}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`not json`))
		}
	}))
	defer srv.Close()
	w := newWorker(0, srv.URL, newClient(srv.URL, 1))
	w.measuring = true
	ctx := context.Background()
	if _, err := w.call(ctx, "ok", http.MethodGet, "/ok", nil); err != nil {
		t.Errorf("ok: %v", err)
	}
	if _, err := w.call(ctx, "login", http.MethodPost, "/busy", map[string]string{"a": "b"}); err == nil || err.Error() != "503 SERVICE_BUSY (login)" {
		t.Errorf("busy: got %v, want 503 SERVICE_BUSY (login)", err)
	}
	_, _ = w.call(ctx, "read", http.MethodGet, "/missing", nil)
	w.measuring = false
	_, _ = w.call(ctx, "read", http.MethodGet, "/missing", nil) // not measured
	want := map[string]int64{"503 SERVICE_BUSY (login)": 1, "404 - (read)": 1}
	if len(w.rec.errors) != len(want) {
		t.Errorf("errors %v, want %v", w.rec.errors, want)
	}
	for k, v := range want {
		if w.rec.errors[k] != v {
			t.Errorf("errors[%q] = %d, want %d", k, w.rec.errors[k], v)
		}
	}
	if w.rec.requests != 3 || w.rec.fivexx != 1 || len(w.rec.byKind["read"]) != 1 {
		t.Errorf("requests %d, 5xx %d, reads %d; want 3, 1, 1", w.rec.requests, w.rec.fivexx, len(w.rec.byKind["read"]))
	}
}

func TestWorkerCallTransportFailure(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	w := newWorker(0, url, newClient(url, 1))
	w.measuring = true
	_, err := w.call(context.Background(), "read", http.MethodGet, "/", nil)
	if err == nil || len(w.rec.errors) != 1 {
		t.Fatalf("got %v, %v; want one transport failure", err, w.rec.errors)
	}
	for k := range w.rec.errors {
		if k[:10] != "transport:" {
			t.Errorf("got key %q, want a transport failure", k)
		}
	}
}

func TestBaselineHandlerWithoutDatabase(t *testing.T) {
	h, err := baselineHandler(nil, []byte("0123456789abcdef0123456789abcdef"), "actionkit", rotateConfig{})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/bare", nil))
	if rec.Code != 200 || rec.Body.String() != string(bareBody) {
		t.Errorf("bare: %d %q", rec.Code, rec.Body.String())
	}
	rec = httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/read", nil)
	req.Header.Set("Authorization", "jwt-user not.a.token")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("read with a bad token: got %d, want 401", rec.Code)
	}
}
