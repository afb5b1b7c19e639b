package ratelimit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/actionkit/actionkit/ratelimit"
)

// A limiter without a Redis pool counts in-process; give it Config.Pool to
// share the counts between instances.
func ExampleLimiter() {
	l := ratelimit.New(ratelimit.Config{Prefix: "actionkit:ratelimit:"})
	defer l.Close()
	for range 3 {
		d := l.Allow(context.Background(), "ip:203.0.113.9", 2, time.Minute)
		fmt.Println(d.Allowed, d.Remaining, d.RetryAfter > 0)
	}
	// Output:
	// true 1 true
	// true 0 true
	// false 0 true
}
