package framework

import "net/http"

const (
	corsMethods = "GET, HEAD, POST, PUT, PATCH, DELETE"
	corsHeaders = "Authorization, Content-Type, X-Client, X-Platform, X-Request-ID, Accept-Language"
	corsExpose  = "X-Request-ID, Retry-After"
)

// handleCORS adds the CORS headers for an allowed origin and answers a
// preflight itself. It reports whether the request has been answered.
func (f *Framework) handleCORS(w http.ResponseWriter, r *http.Request) bool {
	if f.oauth != nil && f.oauth.publicCORS(r.URL.Path) {
		return publicCORS(w, r)
	}
	if len(f.cors) == 0 {
		return false
	}
	h := w.Header()
	h.Add("Vary", "Origin")
	origin := r.Header.Get("Origin")
	allowed := origin != "" && f.cors[origin]
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	if allowed {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
		if !preflight {
			h.Set("Access-Control-Expose-Headers", corsExpose)
		}
	}
	if !preflight {
		return false
	}
	if allowed {
		h.Set("Access-Control-Allow-Methods", corsMethods)
		h.Set("Access-Control-Allow-Headers", corsHeaders)
		h.Set("Access-Control-Max-Age", "600")
	}
	w.WriteHeader(http.StatusNoContent)
	return true
}

const (
	publicCORSMethods = "GET, HEAD, POST, DELETE"
	publicCORSHeaders = "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, X-Client, X-Platform, X-Request-ID, Accept-Language"
	publicCORSExpose  = "WWW-Authenticate, Mcp-Session-Id, X-Request-ID, Retry-After"
)

// publicCORS opens the protected-resource metadata and the MCP endpoint to
// every origin, without credentials (CONTRACT §19-20): what they answer is
// public, or authorized by a bearer token that no browser adds on its own.
// It answers a preflight itself and reports whether it did.
func publicCORS(w http.ResponseWriter, r *http.Request) bool {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		h.Set("Access-Control-Expose-Headers", publicCORSExpose)
		return false
	}
	h.Set("Access-Control-Allow-Methods", publicCORSMethods)
	h.Set("Access-Control-Allow-Headers", publicCORSHeaders)
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}
