package main

import "testing"

func TestCheckLoopbackURL(t *testing.T) {
	tests := []struct {
		name string
		url  string
		ok   bool
	}{
		{"localhost", "http://localhost:8000", true},
		{"localhost any case", "http://LocalHost:8000/x", true},
		{"127.0.0.1", "http://127.0.0.1:8000", true},
		{"127.x.y.z", "http://127.10.20.30", true},
		{"ipv6 loopback", "http://[::1]:8000", true},
		{"ipv4-mapped loopback", "http://[::ffff:127.0.0.1]:8000", true},
		{"private address", "http://10.0.0.1:8000", false},
		{"public address", "http://93.184.216.34", false},
		{"unspecified", "http://0.0.0.0:8000", false},
		{"a name", "http://example.com", false},
		{"localhost look-alike", "http://localhost.example.com", false},
		{"trailing dot", "http://localhost.:8000", false},
		{"128.0.0.1", "http://128.0.0.1", false},
		{"no host", "http:///v1/users/read", false},
		{"wrong scheme", "ftp://127.0.0.1", false},
		{"userinfo trick", "http://127.0.0.1@example.com/", false},
		{"unparseable", "http://[::1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkLoopbackURL(tt.url, "http")
			if got := err == nil; got != tt.ok {
				t.Errorf("checkLoopbackURL(%q) = %v, want ok %v", tt.url, err, tt.ok)
			}
		})
	}
}

func TestCheckLoopbackURLSchemes(t *testing.T) {
	if err := checkLoopbackURL("postgres://postgres@127.0.0.1:5432/x", "postgres", "postgresql"); err != nil {
		t.Errorf("got %v, want nil", err)
	}
	if err := checkLoopbackURL("postgres://postgres@db.internal:5432/x", "postgres"); err == nil {
		t.Error("got nil for a remote database, want an error")
	}
}
