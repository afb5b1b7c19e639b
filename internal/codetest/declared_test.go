package codetest_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/internal/codetest"
)

// TestDeclaredFindsEveryForm: codes declared with the type, several on a
// line, and converted are found; strings, codes local to a function and
// codes of test files are not.
func TestDeclaredFindsEveryForm(t *testing.T) {
	got, err := codetest.Declared("testdata/codes")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]errorcodes.Code{
		"A": "A_CODE 400 a.code", "B": "B_CODE 400 b.code", "C": "C_CODE 404 c.code", "D": "D_CODE 409 d.code",
	}
	if !maps.Equal(got, want) {
		t.Errorf("Declared = %v, want %v", got, want)
	}
}

// TestDeclaredReadsTheFrameworksOwn: inside package errorcodes a code's
// type is plain Code; its declarations are exactly Framework() and Later().
func TestDeclaredReadsTheFrameworksOwn(t *testing.T) {
	got, err := codetest.Declared("../../errorcodes")
	if err != nil {
		t.Fatal(err)
	}
	codes := slices.Collect(maps.Values(got))
	slices.Sort(codes)
	want := slices.Sorted(slices.Values(append(errorcodes.Framework(), errorcodes.Later()...)))
	if !slices.Equal(codes, want) {
		t.Errorf("Declared = %v, want %v", codes, want)
	}
}

// TestUnlistedNamesWhatTheListLacks: a declared code missing from the list
// is named; a list holding every code, or more, lacks nothing.
func TestUnlistedNamesWhatTheListLacks(t *testing.T) {
	all := []errorcodes.Code{"A_CODE 400 a.code", "B_CODE 400 b.code", "C_CODE 404 c.code", "D_CODE 409 d.code"}
	for _, tc := range []struct {
		name string
		list []errorcodes.Code
		want []string
	}{
		{"complete", all, nil},
		{"more than declared", append(slices.Clone(all), errorcodes.NotFound), nil},
		{"one missing", []errorcodes.Code{all[0], all[1], all[3]}, []string{"C"}},
		{"a changed status is another code", []errorcodes.Code{all[0], all[1], all[2], "D_CODE 400 d.code"}, []string{"D"}},
		{"empty", nil, []string{"A", "B", "C", "D"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := codetest.Unlisted("testdata/codes", tc.list)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("Unlisted = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestDeclaredRefusesWhatItCannotRead: a code whose value is not a string
// literal is an error that names it, not a code silently passed over.
func TestDeclaredRefusesWhatItCannotRead(t *testing.T) {
	_, err := codetest.Declared("testdata/literal")
	if err == nil || !strings.Contains(err.Error(), "Computed is not a string literal") {
		t.Errorf("Declared = %v, want an error naming Computed", err)
	}
}
