package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// AttemptTimeout bounds one attempt: connecting, sending and the answer's
// status line and headers.
const AttemptTimeout = 10 * time.Second

// maxResponseRead bounds how much of an answer's body is read (and thrown
// away) before the connection is closed.
const maxResponseRead = 64 << 10

// Retries are the waits after each failed attempt, in order; a delivery
// that fails once more after the last is failed for good.
var Retries = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// NextAttempt returns the wait before the attempt that follows attempts
// failed ones, and false when there is none left.
func NextAttempt(attempts int) (time.Duration, bool) {
	if attempts < 1 || attempts > len(Retries) {
		return 0, false
	}
	return Retries[attempts-1], true
}

// newClient returns the HTTP client of attempts: every connection through
// the guard, no proxy, no redirect followed, AttemptTimeout.
func newClient(g *Guard) *http.Client {
	t := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		TLSHandshakeTimeout:   AttemptTimeout,
		ResponseHeaderTimeout: AttemptTimeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport:     t,
		Timeout:       AttemptTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Attempt is one POST of a delivery.
type Attempt struct {
	URL       string
	ID        string
	At        time.Time
	Body      []byte
	Signature string
}

// post sends a, answering the status code (0 when no answer came) and
// why the attempt failed (nil for a 2xx).
func post(ctx context.Context, client *http.Client, a Attempt) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.URL, bytes.NewReader(a.Body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "actionkit-webhooks")
	req.Header.Set("webhook-id", a.ID)
	req.Header.Set("webhook-timestamp", fmt.Sprint(a.At.Unix()))
	req.Header.Set("webhook-signature", a.Signature)
	res, err := client.Do(req)
	if err != nil {
		return 0, attemptError(err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxResponseRead))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return res.StatusCode, fmt.Errorf("HTTP %d", res.StatusCode)
	}
	return res.StatusCode, nil
}

// attemptError is the short reason of a failed request, for lastError:
// the error without the method and URL.
func attemptError(err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("no answer within %v", AttemptTimeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
