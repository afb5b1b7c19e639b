package accountstest

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/actionkit/actionkit/internal/redistest"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/queues"
)

// Mails returns the mails queued to the address to whose content is still
// kept (no worker sends them), oldest first.
func (e *Env) Mails(t testing.TB, to string) []mail.Message {
	t.Helper()
	conn := e.Redis.Get()
	defer conn.Close()
	type queued struct {
		msg mail.Message
		ttl int64
	}
	var found []queued
	for _, key := range redistest.Keys(t, e.Redis, queues.Namespace(e.Namespace, queues.MailQueue)+":message:*") {
		raw, err := redis.Bytes(conn.Do("GET", key))
		if err != nil {
			t.Fatalf("accountstest: read mail %s: %v", key, err)
		}
		var m mail.Message
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("accountstest: mail %s: %v", key, err)
		}
		// A mail is kept until its token expires: the later it was
		// queued, the longer it lives.
		ttl, err := redis.Int64(conn.Do("PTTL", key))
		if err != nil {
			t.Fatalf("accountstest: mail %s: %v", key, err)
		}
		if strings.EqualFold(m.To, to) {
			found = append(found, queued{m, ttl})
		}
	}
	slices.SortFunc(found, func(a, b queued) int { return int(a.ttl - b.ttl) })
	out := make([]mail.Message, len(found))
	for i, q := range found {
		out[i] = q.msg
	}
	return out
}

// TokenOf returns the one-time token the link of m carries.
func TokenOf(t testing.TB, m mail.Message) string {
	t.Helper()
	u, err := url.Parse(m.Link)
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("accountstest: mail link %q carries no token", m.Link)
	}
	return u.Query().Get("token")
}

// Jobs returns the jobs named job waiting on queue, newest first.
func (e *Env) Jobs(t testing.TB, queue, job string) []*work.Job {
	t.Helper()
	conn := e.Redis.Get()
	defer conn.Close()
	raws, err := redis.ByteSlices(conn.Do("LRANGE", queues.Namespace(e.Namespace, queue)+":jobs:"+job, 0, -1))
	if err != nil {
		t.Fatalf("accountstest: jobs %s: %v", job, err)
	}
	out := make([]*work.Job, len(raws))
	for i, raw := range raws {
		out[i] = &work.Job{}
		if err := json.Unmarshal(raw, out[i]); err != nil {
			t.Fatalf("accountstest: job %s: %v", job, err)
		}
	}
	return out
}

// MailOf returns the token of the one mail of kind queued to the address
// to; it fails t when there is not exactly one.
func (e *Env) MailOf(t testing.TB, to, kind string) string {
	t.Helper()
	var found []mail.Message
	for _, m := range e.Mails(t, to) {
		if m.Kind == kind {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("accountstest: %d mails %s to %s, want 1", len(found), kind, to)
	}
	return TokenOf(t, found[0])
}
