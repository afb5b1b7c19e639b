package federation

import "testing"

func TestOriginsAllow(t *testing.T) {
	o, err := ParseOrigins([]string{"https://app.example.com", "http://localhost:8000", "com.example.app:", "myapp://cb"})
	if err != nil {
		t.Fatal(err)
	}
	for raw, want := range map[string]bool{
		"https://app.example.com/":                   true,
		"https://APP.example.com/login?x=1":          true,
		"http://localhost:8000/demo":                 true,
		"com.example.app:/oauth":                     true,
		"myapp://cb/done":                            true,
		"https://app.example.com.evil.test/":         false,
		"https://evil.test/?https://app.example.com": false,
		"http://app.example.com/":                    false,
		"https://app.example.com:444/":               false,
		"https://app.example.com/#x":                 false,
		"https://user@app.example.com/":              false,
		"//app.example.com/":                         false,
		"/demo":                                      false,
		"myapp://other/":                             false,
		"javascript:alert(1)":                        false,
		"":                                           false,
	} {
		if got := o.Allows(raw); got != want {
			t.Errorf("Allows(%q): got %v, want %v", raw, got, want)
		}
	}
}

func TestParseOriginsRefuses(t *testing.T) {
	for _, bad := range []string{"https://app.example.com/path", "javascript:", "data:", "https://", "ftp ://x", "https://app.example.com?x=1"} {
		if _, err := ParseOrigins([]string{bad}); err == nil {
			t.Errorf("ParseOrigins(%q): got nil, want an error", bad)
		}
	}
}

// TestOriginsAllowApp: an app's flow returns to an allowed app scheme
// only, never to an allowed web origin.
func TestOriginsAllowApp(t *testing.T) {
	o, err := ParseOrigins([]string{"https://app.example.com", "com.example.app:", "myapp://cb"})
	if err != nil {
		t.Fatal(err)
	}
	for raw, want := range map[string]bool{
		"com.example.app:/oauth":   true,
		"myapp://cb/done":          true,
		"https://app.example.com/": false,
		"HTTPS://app.example.com/": false,
		"other.app:/oauth":         false,
	} {
		if got := o.AllowsApp(raw); got != want {
			t.Errorf("AllowsApp(%q): got %v, want %v", raw, got, want)
		}
	}
}
