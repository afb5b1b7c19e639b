// Command bearer serves the kiosk example: a service of its own, on the
// actionkit framework, whose operators authenticate with plain
// "Authorization: Bearer <token>" tokens and whose clients are kiosks and
// command lines:
//
//	KIOSK_TOKEN=s3cret PORT=8200 go run ./examples/bearer
//	curl -s localhost:8200/v1/drawers/open -H 'Authorization: Bearer s3cret' -d '{"drawer":2}'
package main

import (
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/examples/bearer/kiosk"
)

func main() {
	token := os.Getenv("KIOSK_TOKEN")
	if token == "" {
		log.Fatal(errors.New("set KIOSK_TOKEN to the token the operator will present"))
	}
	tokens := kiosk.NewTokens()
	tokens.Grant(token, uuid.New(), kiosk.Kiosk)
	port := os.Getenv("PORT")
	if port == "" {
		port = "8200"
	}
	srv := &http.Server{Addr: ":" + port, Handler: kiosk.New(tokens), ReadHeaderTimeout: 10 * time.Second}
	fmt.Println("kiosk listening on", srv.Addr)
	log.Fatal(srv.ListenAndServe())
}
