package smtptest

import (
	"encoding/base64"
	"io"
	"strings"
)

// newBase64 decodes a base64 body whose lines are broken.
func newBase64(r io.Reader) io.Reader {
	b, err := io.ReadAll(r)
	if err != nil {
		return errReader{err}
	}
	clean := strings.Map(func(c rune) rune {
		if c == '\r' || c == '\n' || c == ' ' {
			return -1
		}
		return c
	}, string(b))
	return base64.NewDecoder(base64.StdEncoding, strings.NewReader(clean))
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
