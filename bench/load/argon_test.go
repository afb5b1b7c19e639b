package main

import (
	"reflect"
	"testing"
)

func TestArgonBoundAdd(t *testing.T) {
	var b ArgonBound
	b.add(ArgonBound{PerSec: 40, HashMs: 50, Workers: 2})
	b.add(ArgonBound{PerSec: 80, HashMs: 25, Workers: 2})
	b.add(ArgonBound{PerSec: 60, HashMs: 33, Workers: 2})
	if b.PerSec != 80 || b.HashMs != 25 || !reflect.DeepEqual(b.Measures, []float64{40, 80, 60}) {
		t.Errorf("got %+v, want the best of 40, 80, 60 and all three measures", b)
	}
}
