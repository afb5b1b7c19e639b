package main

import (
	"net/http"

	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/webclient"
)

// mountWebClient serves the browser client library under /client/ and,
// when DEMO_ENABLED (the default outside production), the demo page at
// /demo and the admin console at /admin. They go through the framework like
// any route (request ids, metrics and access logs), and it returns their
// paths, which the global rate limiter leaves uncounted: a page load
// fetches some thirty of them, answered from memory or by the browser's
// cache.
func (a *app) mountWebClient(fw *framework.Framework) map[string]bool {
	assets := webclient.Library()
	if a.cfg.DemoEnabled {
		assets = append(assets, webclient.Demo()...)
		assets = append(assets, webclient.Admin()...)
	}
	paths := map[string]bool{}
	for _, asset := range assets {
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			fw.Handle(m, asset.Path, asset)
		}
		paths[asset.Path] = true
	}
	return paths
}
