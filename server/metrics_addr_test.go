package main

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// With METRICS_ADDR, /metrics is served on that listener only: the API
// port answers 404 and the OpenAPI document leaves it out; a worker
// process, which has no API port, serves its job metrics there too.
func TestMetricsAddr(t *testing.T) {
	t.Parallel()
	for _, role := range []string{"api", "all"} {
		t.Run(role, func(t *testing.T) {
			t.Parallel()
			s := startServer(t, testEnv(t, "METRICS_ADDR=127.0.0.1:0"), role)
			addr := regexp.MustCompile(`"msg":"metrics listening","addr":"([^"]+)"`).FindStringSubmatch(s.logs.String())
			if addr == nil {
				t.Fatalf("no metrics listener in the logs:\n%s", s.logs.String())
			}
			res, err := http.Get("http://" + addr[1] + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || !strings.Contains(string(body), "go_goroutines") {
				t.Errorf("METRICS_ADDR /metrics: %d %.200s", res.StatusCode, body)
			}
			c := s.client()
			c.call(http.MethodGet, "/metrics", nil).want(t, 404, "NOT_FOUND")
			doc := c.call(http.MethodGet, "/openapi.json", nil)
			if doc.Status != 200 || strings.Contains(doc.Raw, `"/metrics"`) {
				t.Error("the OpenAPI document lists /metrics, which the API port does not serve")
			}
		})
	}
}

// A METRICS_ADDR that cannot be listened on stops the process with 1.
func TestMetricsAddrInUse(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	env := testEnv(t, "METRICS_ADDR="+strings.TrimPrefix(s.URL, "http://"))
	code := run(t.Context(), &environment{
		args:   []string{"worker"},
		getenv: func(k string) string { return env[k] },
		stdout: io.Discard, stderr: io.Discard,
	})
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}
