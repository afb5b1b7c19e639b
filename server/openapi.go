package main

import (
	"net/http"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
)

// mountOpenAPI serves the OpenAPI 3.1 document of the API at /openapi.json.
// The framework writes it from the action declarations at the first
// request, when every action is registered; like any route, it counts
// against the global rate limit.
func mountOpenAPI(fw *framework.Framework, a *app) {
	h := fw.OpenAPIHandler(openAPIInfo(a.cfg, a.catalog))
	fw.Handle(http.MethodGet, "/openapi.json", h)
	fw.Handle(http.MethodHead, "/openapi.json", h)
}

// openAPIInfo is what the document says beyond the actions: the server's
// rate limiter, the named validation rules of the v1 actions, and the
// plain routes (probes, metrics, the signing keys and the document itself).
func openAPIInfo(cfg *config, catalog *errorcodes.Catalog) framework.OpenAPIInfo {
	return framework.OpenAPIInfo{
		Title:   "actionkit",
		Version: cfg.APIVersion,
		Description: "Accounts, sessions and posts. Every action answers GET, HEAD, POST, PUT, PATCH and DELETE " +
			"with a flat JSON body: `status` and `success` beside the result's fields, or an error code and a message.",
		Errors: []errorcodes.Code{errorcodes.TooManyRequests},
		Rules: map[string]framework.Schema{
			"password": {
				"format": "password", "minLength": auth.MinPasswordRunes, "maxLength": auth.MaxPasswordRunes,
				"description": "used exactly as given; needs a lowercase letter, an uppercase letter, a digit and a character that is none of those",
			},
			"locale": {
				"enum":        catalog.Locales(),
				"description": "a configured locale, matched without regard to case (zh-tw becomes zh-TW)",
			},
			"passkeyName": {"description": "no control characters"},
		},
		Routes:       plainRoutes(cfg.MetricsAddr == ""),
		ErrorDetails: errorDetails(),
	}
}

// plainRoutes documents the handlers the server mounts with Handle
// (/metrics only when it is served on the API port).
func plainRoutes(metrics bool) []framework.RouteDoc {
	ok := framework.Schema{
		"type": "object", "required": []string{"status", "success"},
		"properties": framework.Schema{"status": framework.Schema{"const": 200}, "success": framework.Schema{"const": true}},
	}
	draining := framework.ResponseDoc{Codes: []errorcodes.Code{errorcodes.ServiceUnavailable}}
	notReady := framework.Schema{
		"type": "object", "required": []string{"status", "success", "reason", "checks"},
		"properties": framework.Schema{
			"status": framework.Schema{"const": 503}, "success": framework.Schema{"const": false},
			"reason": framework.Schema{"const": "dependency_unavailable"},
			"checks": framework.Schema{"type": "object", "additionalProperties": framework.Schema{"enum": []string{"ok", "down"}}},
		},
	}
	limited := framework.ResponseDoc{Codes: []errorcodes.Code{errorcodes.TooManyRequests}}
	probes := []string{http.MethodGet, http.MethodHead}
	routes := []framework.RouteDoc{
		{Path: "/health", Methods: probes, Tags: []string{"operations"}, Summary: "Liveness probe",
			Description: "Answers 200 while the process runs, and 503 SERVICE_UNAVAILABLE once it is shutting down. Not rate limited.",
			Responses:   map[int]framework.ResponseDoc{200: {Description: "Alive.", Schema: ok}, 503: draining}},
		{Path: "/ready", Methods: probes, Tags: []string{"operations"}, Summary: "Readiness probe",
			Description: "Answers 200 when PostgreSQL and Redis answer. Not rate limited.",
			Responses: map[int]framework.ResponseDoc{
				200: {Description: "Ready.", Schema: ok},
				503: {Description: "A dependency is down, or the process is shutting down (then the body is the SERVICE_UNAVAILABLE error).",
					Schema: framework.Schema{"anyOf": []any{notReady, framework.Schema{"$ref": "#/components/schemas/Error"}}}},
			}},
		{Path: "/openapi.json", Methods: probes, Tags: []string{"operations"}, Summary: "This document",
			Description: "The OpenAPI 3.1 document of the API, generated from the action declarations.",
			Responses: map[int]framework.ResponseDoc{200: {Description: "The document.",
				Schema: framework.Schema{"type": "object", "required": []string{"openapi", "info", "paths"}}}, 429: limited}},
	}
	routes = append(routes, jwksRoute())
	if metrics {
		routes = append(routes, framework.RouteDoc{Path: "/metrics", Methods: []string{http.MethodGet}, Tags: []string{"operations"}, Summary: "Prometheus metrics",
			Description: "The Prometheus text exposition format. Not rate limited.",
			Responses: map[int]framework.ResponseDoc{200: {Description: "The metrics.", ContentType: "text/plain",
				Schema: framework.Schema{"type": "string"}}}})
	}
	return routes
}

// jwksRoute documents the public signing keys.
func jwksRoute() framework.RouteDoc {
	str := framework.Schema{"type": "string"}
	jwk := framework.Schema{
		"type": "object", "required": []string{"kty", "kid", "alg", "use"},
		"properties": framework.Schema{
			"kty": framework.Schema{"enum": []string{"OKP", "EC"}},
			"crv": framework.Schema{"enum": []string{"Ed25519", "P-256"}},
			"x":   str, "y": str, "kid": str,
			"alg": framework.Schema{"enum": []string{"EdDSA", "ES256"}},
			"use": framework.Schema{"const": "sig"},
		},
	}
	return framework.RouteDoc{Path: jwksPath, Methods: []string{http.MethodGet, http.MethodHead}, Tags: []string{"operations"},
		Summary: "Public keys of the access tokens (JWKS)",
		Description: "The JSON Web Key Set of the keys that verify access tokens when ACCESS_TOKEN_ALG is EdDSA or ES256: " +
			"the active key, the next one ahead of its activation, and retired ones until their last token expires. " +
			"Empty when no key pair was ever used. Cacheable for 300 s. Not rate limited.",
		Responses: map[int]framework.ResponseDoc{200: {Description: "The key set.",
			Schema: framework.Schema{"type": "object", "required": []string{"keys"},
				"properties": framework.Schema{"keys": framework.Schema{"type": "array", "items": jwk}}}}}}
}
