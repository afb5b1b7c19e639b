package jsonw

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAppendStringIsEncodingJSON compares AppendString with json.Marshal
// on strings that take each of its paths.
func TestAppendStringIsEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "a", "ada@example.com", "Europe/Berlin", `<b>&"x"</b>`, `back\slash`, "tab\t", "nul\x00", "\x1f", "\x7f",
		"Zoë", "日本語", "\xff\xfe", "a\u2028b\u2029", "🙂", strings.Repeat("x", 1000),
	} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("p:"), s); string(got) != "p:"+string(want) {
			t.Errorf("AppendString(%q) = %s, encoding/json writes %s", s, got[2:], want)
		}
	}
}
