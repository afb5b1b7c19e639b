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
