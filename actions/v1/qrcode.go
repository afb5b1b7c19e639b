package v1

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"

	"github.com/boombuler/barcode/qr"
)

// The QR code of an otpauth URL, drawn here so that the page showing it
// needs no script of its own and sends the secret to nobody: a PNG data
// URL, which the demo's Content-Security-Policy (img-src data:) allows.
const (
	// qrQuietZone is the white border, in modules, that scanners need
	// around the code (four, as the QR specification asks).
	qrQuietZone = 4
	// qrModulePixels is the side of one module in pixels: large enough
	// to scan from a screen without scaling.
	qrModulePixels = 5
)

// qrDataURL encodes content as a QR code with error correction level M
// (github.com/boombuler/barcode, the encoder github.com/pquerna/otp uses
// for the same purpose) and returns it as a black-on-white PNG data URL,
// with its quiet zone.
func qrDataURL(content string) (string, error) {
	code, err := qr.Encode(content, qr.M, qr.Auto)
	if err != nil {
		return "", err
	}
	b := code.Bounds()
	side := (b.Dx() + 2*qrQuietZone) * qrModulePixels
	img := image.NewPaletted(image.Rect(0, 0, side, side), color.Palette{color.White, color.Black})
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.GrayModel.Convert(code.At(x, y)).(color.Gray).Y < 128 {
				fillModule(img, x-b.Min.X+qrQuietZone, y-b.Min.Y+qrQuietZone)
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// fillModule paints the module at column mx, row my black.
func fillModule(img *image.Paletted, mx, my int) {
	for y := my * qrModulePixels; y < (my+1)*qrModulePixels; y++ {
		for x := mx * qrModulePixels; x < (mx+1)*qrModulePixels; x++ {
			img.SetColorIndex(x, y, 1)
		}
	}
}
