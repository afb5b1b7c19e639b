package oidctest

import (
	"errors"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"time"
)

var (
	formActionRe = regexp.MustCompile(`<form[^>]*action="([^"]+)"`)
	promptRe     = regexp.MustCompile(`name="prompt" value="([a-z]+)"`)
	abortRe      = regexp.MustCompile(`href="([^"]*/abort)"`)
)

// ErrNoCallback reports a sign-in that did not end at the client's
// redirect URI.
var ErrNoCallback = errors.New("oidctest: the provider did not send the browser back")

// SignIn drives the provider's pages from authURL the way a person would
// in a browser whose cookies are in client's jar: it logs in as the
// account sub and consents, and returns the URL the provider then sends
// the browser to (the client's redirect URI with code, state and iss),
// without following it. With abort it cancels at the login page instead
// (the provider then sends an error).
func (p *Provider) SignIn(client *http.Client, authURL, sub string, abort bool) (string, error) {
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if c.Timeout == 0 {
		c.Timeout = 30 * time.Second
	}
	next, form := authURL, url.Values(nil)
	for range 20 {
		if p.CallbackOf(next) {
			return next, nil
		}
		res, body, err := step(&c, next, form)
		if err != nil {
			return "", err
		}
		if loc := res.Header.Get("Location"); res.StatusCode/100 == 3 && loc != "" {
			next, form = resolve(res.Request.URL, loc), nil
			continue
		}
		if res.StatusCode != http.StatusOK {
			return "", errors.New("oidctest: " + res.Status + " at " + next + ": " + string(body))
		}
		if next, form, err = answer(res.Request.URL, string(body), sub, abort); err != nil {
			return "", err
		}
	}
	return "", ErrNoCallback
}

// step sends a GET, or a POST of form when it is not nil.
func step(c *http.Client, target string, form url.Values) (*http.Response, []byte, error) {
	var (
		res *http.Response
		err error
	)
	if form != nil {
		res, err = c.PostForm(target, form)
	} else {
		res, err = c.Get(target)
	}
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res, body, err
}

// answer fills the page's form: the login (or its abort link), or the
// consent.
func answer(base *url.URL, page, sub string, abort bool) (string, url.Values, error) {
	prompt := promptRe.FindStringSubmatch(page)
	action := formActionRe.FindStringSubmatch(page)
	if prompt == nil || action == nil {
		return "", nil, errors.New("oidctest: a page without a login or consent form: " + page)
	}
	if prompt[1] == "login" && abort {
		link := abortRe.FindStringSubmatch(page)
		if link == nil {
			return "", nil, errors.New("oidctest: the login page has no abort link")
		}
		return resolve(base, html.UnescapeString(link[1])), nil, nil
	}
	form := url.Values{"prompt": {prompt[1]}}
	if prompt[1] == "login" {
		form.Set("login", sub)
		form.Set("password", "any password")
	}
	return resolve(base, html.UnescapeString(action[1])), form, nil
}

func resolve(base *url.URL, ref string) string {
	u, err := base.Parse(ref)
	if err != nil {
		return ref
	}
	return u.String()
}
