package v1

import (
	"bytes"
	"encoding/base64"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/boombuler/barcode/qr"
)

// TestQRDataURL draws an otpauth URL and reads the PNG back: every module
// of the encoder's matrix, at its place inside the quiet zone, in black or
// white, and nothing else dark. (That the matrix scans to the URL is the
// encoder's business; the browser test reads the page's image with a QR
// decoder.)
func TestQRDataURL(t *testing.T) {
	url := "otpauth://totp/actionkit:ada%40example.com?algorithm=SHA1&digits=6&issuer=actionkit&period=30&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	got, err := qrDataURL(url)
	if err != nil {
		t.Fatal(err)
	}
	b64, ok := strings.CutPrefix(got, "data:image/png;base64,")
	if !ok {
		t.Fatalf("not a PNG data URL: %.40s", got)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	code, err := qr.Encode(url, qr.M, qr.Auto)
	if err != nil {
		t.Fatal(err)
	}
	n := code.Bounds().Dx()
	if side := (n + 2*qrQuietZone) * qrModulePixels; img.Bounds().Dx() != side || img.Bounds().Dy() != side {
		t.Fatalf("image %v, want %dx%d (%d modules, quiet zone %d, %d px a module)", img.Bounds(), side, side, n, qrQuietZone, qrModulePixels)
	}
	dark := func(c color.Color) bool { return color.GrayModel.Convert(c).(color.Gray).Y < 128 }
	modules := n + 2*qrQuietZone
	for my := range modules {
		for mx := range modules {
			want := false
			if x, y := mx-qrQuietZone, my-qrQuietZone; x >= 0 && y >= 0 && x < n && y < n {
				want = dark(code.At(x, y))
			}
			for _, p := range [][2]int{{0, 0}, {qrModulePixels - 1, qrModulePixels - 1}} {
				if got := dark(img.At(mx*qrModulePixels+p[0], my*qrModulePixels+p[1])); got != want {
					t.Fatalf("module (%d, %d): dark %v, want %v", mx, my, got, want)
				}
			}
		}
	}
	if len(got) > 4096 {
		t.Errorf("data URL of %d bytes; a two-colour PNG of this code should be far smaller", len(got))
	}
}
