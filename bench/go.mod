module github.com/actionkit/actionkit/bench

go 1.26.0

require (
	github.com/actionkit/actionkit v0.0.0
	github.com/golang-jwt/jwt/v5 v5.3.1
	github.com/gomodule/redigo v1.9.3
	github.com/google/uuid v1.6.0
	github.com/jmoiron/sqlx v1.4.0
	github.com/julienschmidt/httprouter v1.3.0
	github.com/lib/pq v1.12.3
	github.com/tsenart/vegeta/v12 v12.13.0
	github.com/valyala/fasthttp v1.78.0
	golang.org/x/crypto v0.58.0
)

require (
	github.com/golang-migrate/migrate/v4 v4.20.1 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/influxdata/tdigest v0.0.1 // indirect
	github.com/josharian/intern v1.0.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	github.com/molecule-man/go-brrr v1.3.1 // indirect
	github.com/rs/dnscache v0.0.0-20230804202142-fc85eb664529 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace github.com/actionkit/actionkit => ../
