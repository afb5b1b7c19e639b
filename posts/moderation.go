package posts

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLinks is how many links a post may carry before moderation takes it
// for spam.
const MaxLinks = 5

// Moderator refuses posts that contain a blocked word or too many links.
// Words match whole and case-insensitively.
type Moderator struct {
	Blocked []string
}

// Check returns why a post is refused, or nil.
func (m Moderator) Check(title, body string) error {
	text := title + "\n" + body
	if n := strings.Count(strings.ToLower(text), "http://") + strings.Count(strings.ToLower(text), "https://"); n > MaxLinks {
		return fmt.Errorf("%d links, at most %d allowed", n, MaxLinks)
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' })
	for _, w := range words {
		for _, b := range m.Blocked {
			if w == b {
				return fmt.Errorf("blocked word %q", b)
			}
		}
	}
	return nil
}

// previewRunes is the length of a preview, in characters.
const previewRunes = 160

// Preview is a plain-text excerpt of a post: its body (or title, when the
// body is empty) with runs of whitespace collapsed, cut at a word boundary
// to at most 160 characters, with an ellipsis when cut.
func Preview(title, body string) string {
	text := strings.Join(strings.Fields(body), " ")
	if text == "" {
		text = strings.Join(strings.Fields(title), " ")
	}
	if utf8.RuneCountInString(text) <= previewRunes {
		return text
	}
	cut := []rune(text)[:previewRunes-1]
	if i := lastSpace(cut); i > previewRunes/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(string(cut), " ,.;:") + "…"
}

func lastSpace(r []rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] == ' ' {
			return i
		}
	}
	return -1
}
