package webclient

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed assets/client assets/demo assets/admin
var files embed.FS

// ContentSecurityPolicy is sent with every asset: scripts, styles and
// network connections from the page's own origin only ('self' also covers
// the WebSocket of socket.io on that origin), no inline script or style, no
// plugins, no framing, no form posts elsewhere.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Asset is one embedded file and the URL path it is served at. It is an
// http.Handler for GET and HEAD.
type Asset struct {
	// Path is the URL path, such as /client/actionkit.js.
	Path string
	// ContentType is the media type sent with it.
	ContentType string
	// ETag is a strong validator derived from the content.
	ETag string
	// CacheControl is its Cache-Control: PageCache for a page, AssetCache
	// for a script, a stylesheet or a text file.
	CacheControl string
	body         []byte
}

// The cache lifetimes. A browser keeps a script or a stylesheet five
// minutes and a page one, then asks again with If-None-Match, answered
// 304 while the file is unchanged: a reload within the lifetime costs no
// request, and a new version reaches every browser within five minutes.
const (
	PageCache  = "public, max-age=60, must-revalidate"
	AssetCache = "public, max-age=300, must-revalidate"
	// PrivateCache is the Cache-Control of a page asked with a query.
	PrivateCache = "private, no-store"
)

var _ http.Handler = (*Asset)(nil)

// Library returns the client library's assets, served under /client/.
func Library() []*Asset {
	return load("assets/client", "/client/", map[string]string{})
}

// Demo returns the demo page's assets: the page at /demo and its styles and
// scripts under /demo/.
func Demo() []*Asset {
	return load("assets/demo", "/demo/", map[string]string{"index.html": "/demo"})
}

// Admin returns the admin console's assets: the page at /admin and its
// script and styles under /admin/. The console also uses the demo's
// stylesheet and view helpers, so serve it together with Demo.
func Admin() []*Asset {
	return load("assets/admin", "/admin/", map[string]string{"index.html": "/admin"})
}

// Body returns a copy of the asset's content.
func (a *Asset) Body() []byte { return bytes.Clone(a.body) }

// ServeHTTP answers with the content, or 304 Not Modified when the request's
// If-None-Match names the ETag, with its Cache-Control; HEAD gets the
// headers only.
func (a *Asset) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", a.ContentType)
	h.Set("ETag", a.ETag)
	cc := a.CacheControl
	if r.URL.RawQuery != "" && cc == PageCache {
		// A page asked with a query (the demo page's ?oauth_request=) is
		// kept by no cache: the query may name something of one user.
		cc = PrivateCache
	}
	h.Set("Cache-Control", cc)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	http.ServeContent(w, r, path.Base(a.Path), time.Time{}, bytes.NewReader(a.body))
}

// load reads every file of dir (one level) into an Asset served at prefix
// plus its name, or at the path given for it in rename.
func load(dir, prefix string, rename map[string]string) []*Asset {
	entries, err := files.ReadDir(dir)
	if err != nil {
		panic("webclient: " + err.Error()) // the directories are embedded
	}
	var out []*Asset
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		body, err := files.ReadFile(dir + "/" + e.Name())
		if err != nil {
			panic("webclient: " + err.Error())
		}
		p, ok := rename[e.Name()]
		if !ok {
			p = prefix + e.Name()
		}
		sum := sha256.Sum256(body)
		cache := AssetCache
		if strings.HasSuffix(e.Name(), ".html") {
			cache = PageCache
		}
		out = append(out, &Asset{
			Path:         p,
			ContentType:  contentType(e.Name()),
			ETag:         fmt.Sprintf("%q", hex.EncodeToString(sum[:16])),
			CacheControl: cache,
			body:         body,
		})
	}
	return out
}

func contentType(name string) string {
	switch {
	case strings.HasSuffix(name, ".js"):
		return "text/javascript; charset=utf-8"
	case strings.HasSuffix(name, ".css"):
		return "text/css; charset=utf-8"
	case strings.HasSuffix(name, ".html"):
		return "text/html; charset=utf-8"
	case strings.HasSuffix(name, ".txt"):
		return "text/plain; charset=utf-8"
	}
	panic("webclient: no media type for " + name)
}
