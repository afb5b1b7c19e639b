package main

import (
	"net/http"

	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/webclient"
)

// mountWebClient serves the browser client library under /client/ and,
// when DEMO_ENABLED (the default outside production), the demo page at
// /demo and the admin console at /admin. They go through the framework like
// any route: request ids, the global rate limiter, metrics and access logs.
func (a *app) mountWebClient(fw *framework.Framework) {
	assets := webclient.Library()
	if a.cfg.DemoEnabled {
		assets = append(assets, webclient.Demo()...)
		assets = append(assets, webclient.Admin()...)
	}
	for _, asset := range assets {
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			fw.Handle(m, asset.Path, asset)
		}
	}
}
