package webhooks

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPublicRefusesEveryNonPublicForm(t *testing.T) {
	for _, a := range []string{
		"127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1", "0.0.0.0", "0.1.2.3",
		"169.254.169.254", "224.0.0.1", "255.255.255.255", "198.18.0.1", "240.0.0.1",
		"::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::1",
		"64:ff9b:1::1", "2001:db8::1",
		"::7f00:1", "::a9fe:a9fe", "fec0::1", "100::1", "3fff::1",
	} {
		if Public(netip.MustParseAddr(a)) {
			t.Errorf("%s is public, want refused", a)
		}
	}
	for _, a := range []string{"93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"} {
		if !Public(netip.MustParseAddr(a)) {
			t.Errorf("%s is refused, want public", a)
		}
	}
}

// answers is a resolver the test controls: each host answers its list.
type answers map[string][]netip.Addr

func (a answers) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	if addrs, ok := a[host]; ok {
		return addrs, nil
	}
	return nil, errors.New("no such host")
}

func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}

func TestCheckURL(t *testing.T) {
	g := &Guard{Insecure: []string{"insecure.test", "127.0.0.1:9999"}, Lookup: answers{
		"hooks.example.com":  addrs("93.184.216.34"),
		"inside.example.com": addrs("10.0.0.7"),
		"both.example.com":   addrs("93.184.216.34", "127.0.0.1"),
		"meta.example.com":   addrs("169.254.169.254"),
	}.lookup}
	ok := []string{"https://hooks.example.com/in", "https://93.184.216.34:8443/x?y=1", "http://insecure.test/x",
		"https://insecure.test/x", "http://127.0.0.1:9999/hook"}
	for _, u := range ok {
		if err := g.CheckURL(t.Context(), u); err != nil {
			t.Errorf("%s: %v, want accepted", u, err)
		}
	}
	bad := []string{"http://hooks.example.com/in", "ftp://hooks.example.com", "hooks.example.com/in", "https:///x",
		"https://inside.example.com/", "https://both.example.com/", "https://meta.example.com/",
		"https://169.254.169.254/latest/meta-data", "https://127.0.0.1/", "https://[::1]/", "https://[::ffff:10.0.0.1]/",
		"https://localhost.invalid/", "http://127.0.0.1:9998/hook", "https://hooks.example.com/#frag",
		"https://hooks.example.com/" + strings.Repeat("a", 2048), "https://user:secret@hooks.example.com/in"}
	for _, u := range bad {
		if err := g.CheckURL(t.Context(), u); err == nil {
			t.Errorf("%s: accepted, want refused", u)
		}
	}
}

// TestDialChecksTheAddressWhenItConnects: a host that resolved to a public
// address when its webhook was made, and to loopback now, is refused
// before any connection; the same host listed as insecure connects, so
// the refusal is the guard's and the resolver is the one used.
func TestDialChecksTheAddressWhenItConnects(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var lookups atomic.Int32
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		if lookups.Add(1) == 1 {
			return addrs("93.184.216.34"), nil
		}
		return addrs("127.0.0.1"), nil
	}
	g := &Guard{Lookup: lookup}
	url := "http://rebind.example.com:" + port + "/hook"
	if err := g.CheckURL(t.Context(), "https://rebind.example.com:"+port+"/hook"); err != nil {
		t.Fatalf("at create, the public answer: %v", err)
	}
	client := newClient(g)
	code, err := post(t.Context(), client, Attempt{URL: url, ID: "msg_1", At: time.Now(), Body: []byte("{}"), Signature: "v1,x"})
	if !errors.Is(err, ErrRefusedAddress) || code != 0 || hits.Load() != 0 {
		t.Fatalf("at delivery, the loopback answer: got %d %v with %d requests, want refused before connecting", code, err, hits.Load())
	}
	if !strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("the error does not name the address: %v", err)
	}
	g.Insecure = []string{"rebind.example.com"}
	if code, err := post(t.Context(), newClient(g), Attempt{URL: url, ID: "msg_1", At: time.Now(), Body: []byte("{}"), Signature: "v1,x"}); err != nil || code != 200 || hits.Load() != 1 {
		t.Fatalf("insecure host: got %d %v with %d requests, want 200 once", code, err, hits.Load())
	}
}

// TestControlRefusesWhatIsDialled: the socket-level check refuses a
// non-public address even when the caller skipped the resolver's.
func TestControlRefusesWhatIsDialled(t *testing.T) {
	d := net.Dialer{Control: controlPublic, Timeout: time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if c, err := d.Dial("tcp", ln.Addr().String()); err == nil || !errors.Is(err, ErrRefusedAddress) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("dialled %s: %v, want refused", ln.Addr(), err)
	}
}

// TestRedirectsAreNotFollowed: a 3xx is the answer of the attempt (a
// failure), never a request to where it points.
func TestRedirectsAreNotFollowed(t *testing.T) {
	var followed atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { followed.Add(1) }))
	defer target.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	g := &Guard{Insecure: []string{"127.0.0.1"}}
	code, err := post(t.Context(), newClient(g), Attempt{URL: srv.URL, ID: "m", At: time.Now(), Body: []byte("{}"), Signature: "v1,x"})
	if code != http.StatusTemporaryRedirect || err == nil || followed.Load() != 0 {
		t.Fatalf("got %d %v, %d followed; want 307, a failure, none followed", code, err, followed.Load())
	}
}
