package framework

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/actionkit/actionkit/errorcodes"
)

// readArgs merges the query parameters and the body (JSON object or form)
// into one raw argument set; the body wins on a clash. Every failure is a
// BAD_REQUEST_INVALID_ARGUMENTS naming "query" or "body".
func (f *Framework) readArgs(r *http.Request) (map[string]any, *errorcodes.Error) {
	vals := map[string]any{}
	if r.URL.RawQuery != "" {
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return nil, invalid("query", "invalid_query", "is not a valid query string", nil)
		}
		if e := mergeForm(vals, q, "query"); e != nil {
			return nil, e
		}
	}
	if r.Body == nil || r.Body == http.NoBody {
		return vals, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, f.maxBody+1))
	if err != nil {
		return nil, invalid("body", "invalid_json", "could not be read", nil)
	}
	if int64(len(body)) > f.maxBody {
		return nil, invalid("body", "too_large", "must be at most {max} bytes", map[string]any{"max": f.maxBody})
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return vals, nil
	}
	switch mediaType(r.Header.Get("Content-Type")) {
	case "application/json", "":
		return vals, mergeJSON(vals, body)
	case "application/x-www-form-urlencoded":
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, invalid("body", "invalid_query", "is not a valid form body", nil)
		}
		return vals, mergeForm(vals, form, "body")
	}
	return nil, invalid("body", "unsupported_media_type", "must be application/json or application/x-www-form-urlencoded", nil)
}

func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	if strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json") {
		return "application/json"
	}
	return mt
}

func mergeForm(dst map[string]any, form url.Values, where string) *errorcodes.Error {
	for k, vs := range form {
		if !utf8.ValidString(k) {
			return invalid(where, "invalid_utf8", "must be valid UTF-8", nil)
		}
		for _, v := range vs {
			if !utf8.ValidString(v) {
				return invalid(k, "invalid_utf8", "must be valid UTF-8", nil)
			}
		}
		if len(vs) > 1 {
			dst[k] = repeated{}
		} else if len(vs) == 1 {
			dst[k] = vs[0]
		}
	}
	return nil
}

// mergeJSON decodes body as exactly one JSON object and merges its members
// into dst. It refuses invalid UTF-8 (also as lone surrogate escapes),
// duplicate member names, non-object bodies and trailing data, which
// encoding/json would otherwise silently accept or repair.
func mergeJSON(dst map[string]any, body []byte) *errorcodes.Error {
	bad := invalid("body", "invalid_json", "must be one valid JSON object in UTF-8", nil)
	if !utf8.Valid(body) || !validSurrogates(body) {
		return bad
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return bad
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return invalid("body", "not_object", "must be a JSON object", nil)
	}
	seen := make(map[string]bool, 8)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return bad
		}
		key, _ := tok.(string)
		if seen[key] {
			return invalid(key, "repeated", "must be given only once", nil)
		}
		seen[key] = true
		var v any
		if err := dec.Decode(&v); err != nil {
			return bad
		}
		dst[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return bad
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return bad
	}
	return nil
}

// validSurrogates reports whether every \u escape in a JSON text that
// encodes a UTF-16 surrogate is part of a well-formed pair.
func validSurrogates(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if i+1 >= len(b) {
			return false
		}
		if b[i+1] != 'u' {
			i++
			continue
		}
		r, ok := hex4(b, i+2)
		if !ok {
			return false
		}
		i += 5
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return false
		case r >= 0xD800 && r <= 0xDBFF:
			if i+6 >= len(b) || b[i+1] != '\\' || b[i+2] != 'u' {
				return false
			}
			lo, ok := hex4(b, i+3)
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 6
		}
	}
	return true
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[at:at+4]), 16, 16)
	return rune(n), err == nil
}

func invalid(name, code, msg string, params map[string]any) *errorcodes.Error {
	return errorcodes.BadRequestInvalidArguments.WithFields(map[string]errorcodes.FieldError{
		name: {Code: code, Message: msg, Params: params},
	})
}
