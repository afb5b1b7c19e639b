package framework

import (
	"errors"
	"net/http"
	"strconv"
	"testing"

	"github.com/actionkit/actionkit/action"
)

// appended writes its own JSON, which differs from encoding/json's (no
// "n" key) so that a test can tell which wrote the answer.
type appended struct {
	N    int `json:"n"`
	fail error
	obj  string // written as is when set
}

func (a *appended) AppendJSON(b []byte) ([]byte, error) {
	switch {
	case a.fail != nil:
		return nil, a.fail
	case a.obj != "":
		return append(b, a.obj...), nil
	}
	b = append(b, `{"byHand":`...)
	return append(strconv.AppendInt(b, int64(a.N), 10), '}'), nil
}

// embedsAppended embeds an appender: its promoted AppendJSON would leave
// out Extra.
type embedsAppended struct {
	appended
	Extra string `json:"extra"`
}

// embedsAndOwns embeds an appender and declares its own AppendJSON.
type embedsAndOwns struct {
	*appended
	Extra string `json:"extra"`
}

func (e *embedsAndOwns) AppendJSON(b []byte) ([]byte, error) {
	return append(b, `{"own":true}`...), nil
}

// TestResultsThatAppendTheirOwnJSON checks that the framework writes a
// result implementing action.JSONAppender with its AppendJSON, flat in the
// body as any result, and never through a method a result type inherited
// from a field it embeds.
func TestResultsThatAppendTheirOwnJSON(t *testing.T) {
	f := newTestFramework(t, Config{})
	var next *appended
	Register(f, actionFunc[noArgs, appended]{spec: specFor("V1Appended", "/v1/appended"),
		run: func(*action.Request) (*appended, error) { return next, nil }})
	Register(f, actionFunc[noArgs, embedsAppended]{spec: specFor("V1Embeds", "/v1/embeds"),
		run: func(*action.Request) (*embedsAppended, error) {
			return &embedsAppended{appended: appended{N: 7}, Extra: "kept"}, nil
		}})
	Register(f, actionFunc[noArgs, embedsAndOwns]{spec: specFor("V1EmbedsAndOwns", "/v1/embedsandowns"),
		run: func(*action.Request) (*embedsAndOwns, error) {
			return &embedsAndOwns{appended: &appended{N: 8}, Extra: "kept"}, nil
		}})

	cases := []struct {
		name, path string
		result     *appended
		code       int
		raw        string
	}{
		{"appended", "/v1/appended", &appended{N: 42}, http.StatusOK, `{"status":200,"success":true,"byHand":42}`},
		{"empty object", "/v1/appended", &appended{obj: "{}"}, http.StatusOK, `{"status":200,"success":true}`},
		{"no result", "/v1/appended", nil, http.StatusOK, `{"status":200,"success":true}`},
		{"embedded appender ignored", "/v1/embeds", nil, http.StatusOK, `{"status":200,"success":true,"n":7,"extra":"kept"}`},
		{"own appender beside an embedded one ignored", "/v1/embedsandowns", nil, http.StatusOK,
			`{"status":200,"success":true,"n":8,"extra":"kept"}`},
	}
	for _, tc := range cases {
		next = tc.result
		res := do(t, f, http.MethodPost, tc.path, "", "")
		if res.Code != tc.code || res.Raw != tc.raw {
			t.Errorf("%s: %d %s, want %d %s", tc.name, res.Code, res.Raw, tc.code, tc.raw)
		}
		if got := res.Header.Get("Content-Length"); got != strconv.Itoa(len(res.Raw)) {
			t.Errorf("%s: Content-Length %q for %d bytes", tc.name, got, len(res.Raw))
		}
	}

	// An appender that fails, or writes anything but an object, is a
	// server error, and its bytes are not sent.
	for _, bad := range []*appended{{fail: errors.New("cannot encode")}, {obj: `[1]`}, {obj: `"x"`}, {obj: `{`}, {obj: ``}} {
		if bad.obj == "" && bad.fail == nil {
			bad.obj = " " // an appender that writes a blank
		}
		next = bad
		res := do(t, f, http.MethodPost, "/v1/appended", "", "")
		if res.Code != http.StatusInternalServerError || res.Body["error"] != "INTERNAL_SERVER_ERROR" {
			t.Errorf("appender writing %q (error %v): %d %s, want 500 INTERNAL_SERVER_ERROR", bad.obj, bad.fail, res.Code, res.Raw)
		}
	}
}
