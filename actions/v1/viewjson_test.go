package v1

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// stdJSON is what the framework's encoding/json encoder writes for v.
func stdJSON(t *testing.T, v any) (string, error) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// jsonStrings are strings that take every path of appendString: plain
// ASCII, HTML characters, quotes and backslashes, control characters,
// multi-byte and invalid UTF-8, and the line separators encoding/json
// escapes.
var jsonStrings = []string{
	"", "a", "Ada", "ada@example.com", "Europe/Berlin", "pt-BR",
	`<script>alert("x")</script>`, "a&b", `back\slash`, "tab\there", "nul\x00", "\x7f",
	"Zoë", "日本語", "\xff\xfe", "line\u2028sep\u2029", "emoji 🙂", strings.Repeat("x", 300),
}

// jsonTimes are times that take every path of appendTime: UTC with and
// without fractions, other zones, offsets with seconds, and the years
// MarshalJSON refuses.
func jsonTimes() []time.Time {
	berlin := time.FixedZone("CET", 3600)
	odd := time.FixedZone("LMT", 3600+123) // an offset of seconds
	return []time.Time{
		{}, time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 28, 18, 0, 0, 123456789, time.UTC),
		time.Date(2026, 11, 28, 18, 0, 0, 120000000, berlin),
		time.Date(1890, 1, 1, 0, 0, 0, 0, odd),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Now(),
	}
}

// randomView is an account view of values drawn from the lists above.
func randomView(r *rand.Rand) *AccountView {
	s := func() string { return jsonStrings[r.IntN(len(jsonStrings))] }
	times := jsonTimes()
	tm := func() time.Time { return times[r.IntN(len(times))] }
	ptr := func() *time.Time {
		if r.IntN(3) == 0 {
			return nil
		}
		t := tm()
		return &t
	}
	var id uuid.UUID
	for i := range id {
		id[i] = byte(r.UintN(256))
	}
	return &AccountView{ID: id, Email: s(), FirstName: s(), LastName: s(), Timezone: s(), Locale: s(),
		IsActive: r.IntN(2) == 0, DeletedAt: ptr(), LoginCount: r.Int64N(1<<40) - 1<<39, LastLoginAt: ptr(),
		CreatedAt: tm(), UpdatedAt: tm(), EmailVerifiedAt: ptr(), MFAEnabled: r.IntN(2) == 0, HasPassword: r.IntN(2) == 0}
}

// TestAnswersAppendWhatEncodingJSONWrites compares the hand-written
// answers with encoding/json's over many values: the same bytes, and an
// error exactly where encoding/json fails.
func TestAnswersAppendWhatEncodingJSONWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	view := func() *AccountView {
		if r.IntN(4) == 0 {
			return nil
		}
		return randomView(r)
	}
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return jsonStrings[r.IntN(len(jsonStrings))]
	}
	failures := 0
	for range 3000 {
		for _, v := range []interface {
			AppendJSON([]byte) ([]byte, error)
		}{
			&SessionResult{Token: str(), RefreshToken: str(), DeviceToken: str(), User: view(), Admin: view()},
			&AccountResult{User: view(), Admin: view()},
		} {
			want, wantErr := stdJSON(t, v)
			got, err := v.AppendJSON([]byte("prefix"))
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("%+v: AppendJSON error %v, encoding/json's %v", v, err, wantErr)
			}
			if err != nil {
				failures++
				continue
			}
			if string(got) != "prefix"+want {
				t.Fatalf("AppendJSON wrote\n%s\nencoding/json\n%s", got, want)
			}
		}
	}
	if failures == 0 {
		t.Fatal("no value reached a time encoding/json refuses: the error path went untested")
	}
}

// BenchmarkSessionAnswer compares the refresh's answer written by hand
// with encoding/json's encoder, as the framework used it.
func BenchmarkSessionAnswer(b *testing.B) {
	now := time.Date(2026, 11, 28, 18, 0, 0, 123456000, time.UTC)
	res := &SessionResult{Token: strings.Repeat("eyJhbGciOiJIUzI1NiJ9", 20), RefreshToken: strings.Repeat("0f", 32),
		User: &AccountView{ID: uuid.New(), Email: "ada@example.com", FirstName: "Ada", LastName: "Lovelace", Timezone: "UTC",
			Locale: "en", IsActive: true, LoginCount: 3, LastLoginAt: &now, CreatedAt: now, UpdatedAt: now, HasPassword: true}}
	b.Run("append", func(b *testing.B) {
		buf := make([]byte, 0, 2048)
		for b.Loop() {
			if _, err := res.AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			if err := json.NewEncoder(&buf).Encode(res); err != nil {
				b.Fatal(err)
			}
		}
	})
}
