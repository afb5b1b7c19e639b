// Package jsonw appends JSON values by hand, byte for byte as
// encoding/json writes them with HTML escaping on (its default): for the
// hot answers and tokens whose shape is fixed, without its reflection.
package jsonw

import (
	"encoding/json"
	"unicode/utf8"
)

// AppendString appends s as a JSON string. Printable ASCII that needs no
// escape is copied; anything else goes through encoding/json, which
// escapes quotes, backslashes, control characters, <, > and &, U+2028 and
// U+2029, and replaces invalid UTF-8.
func AppendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
