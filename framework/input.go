package framework

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
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
	body, err := readBody(r, f.maxBody)
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

// presizedBody is the longest declared body readBody reads into a buffer
// of the declared length. Longer ones grow with the bytes that arrive, so
// that a client cannot make the server hold memory for a body it has only
// announced (a slow sender under ReadTimeout).
const presizedBody = 8 << 10

// readBody reads the body of r, or its first max+1 bytes when it is
// longer than max. A small body whose length is declared within max is
// read into one buffer of that length (net/http ends it there).
func readBody(r *http.Request, max int64) ([]byte, error) {
	if n := r.ContentLength; n >= 0 && n <= max && n <= presizedBody {
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, err
		}
		return body, nil
	}
	return io.ReadAll(io.LimitReader(r.Body, max+1))
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
//
// A body that is one valid JSON object is read by mergeObject, which
// walks its top level without a json.Decoder; anything else (and an
// object that mergeObject leaves) takes mergeJSONStream, whose refusals
// are the answer.
func mergeJSON(dst map[string]any, body []byte) *errorcodes.Error {
	if !utf8.Valid(body) || !validSurrogates(body) {
		return badJSON()
	}
	if json.Valid(body) {
		if members, ok := scanObject(body); ok {
			return mergeObject(dst, members)
		}
	}
	return mergeJSONStream(dst, body)
}

// badJSON is the refusal of a body that is not one JSON object in UTF-8.
func badJSON() *errorcodes.Error {
	return invalid("body", "invalid_json", "must be one valid JSON object in UTF-8", nil)
}

// mergeJSONStream is mergeJSON with a json.Decoder, member by member, for
// the bodies mergeObject does not take: the first fault it meets decides
// the refusal.
func mergeJSONStream(dst map[string]any, body []byte) *errorcodes.Error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return badJSON()
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return invalid("body", "not_object", "must be a JSON object", nil)
	}
	seen := make(map[string]bool, 8)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return badJSON()
		}
		key, _ := tok.(string)
		if seen[key] {
			return invalid(key, "repeated", "must be given only once", nil)
		}
		seen[key] = true
		var v any
		if err := dec.Decode(&v); err != nil {
			return badJSON()
		}
		dst[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return badJSON()
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badJSON()
	}
	return nil
}

// member is one top-level member of a JSON object: its name and value as
// they are written in the body.
type member struct{ key, value []byte }

// maxScanned is the most members scanObject reads; a larger object takes
// mergeJSONStream.
const maxScanned = 16

// scanObject splits body, a valid JSON text, into the members of its
// top-level object; false when body is not an object or has more than
// maxScanned members.
func scanObject(body []byte) ([maxScanned]member, bool) {
	var out [maxScanned]member
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return out, false
	}
	i = skipSpace(body, i+1)
	if body[i] == '}' {
		return out, true
	}
	for n := 0; ; n++ {
		if n == maxScanned {
			return out, false
		}
		end := valueEnd(body, i) // the name, a string
		out[n].key = body[i:end]
		i = skipSpace(body, end)
		i = skipSpace(body, i+1) // past ':'
		end = valueEnd(body, i)
		out[n].value = body[i:end]
		i = skipSpace(body, end)
		if body[i] == '}' {
			return out, true
		}
		i = skipSpace(body, i+1) // past ','
	}
}

// mergeObject merges the members scanObject found into dst, refusing a
// name given twice, and decoding each value as a json.Decoder with
// UseNumber would.
func mergeObject(dst map[string]any, members [maxScanned]member) *errorcodes.Error {
	var keys [maxScanned]string
	for n := range members {
		m := members[n]
		if m.key == nil {
			break
		}
		key, err := jsonString(m.key)
		if err != nil {
			return badJSON()
		}
		if slices.Contains(keys[:n], key) {
			return invalid(key, "repeated", "must be given only once", nil)
		}
		keys[n] = key
		v, err := jsonValue(m.value)
		if err != nil {
			return badJSON()
		}
		dst[key] = v
	}
	return nil
}

// jsonString decodes a valid JSON string literal.
func jsonString(raw []byte) (string, error) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// jsonValue decodes a valid JSON value as json.Decoder with UseNumber does
// into an any.
func jsonValue(raw []byte) (any, error) {
	switch raw[0] {
	case '"':
		return jsonString(raw)
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	case '{', '[':
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		err := dec.Decode(&v)
		return v, err
	}
	return json.Number(raw), nil
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the JSON value that starts at i in
// b, a valid JSON text.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(b)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = valueEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \t\n\r", rune(b[j])) {
		j++
	}
	return j
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
