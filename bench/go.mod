module github.com/actionkit/actionkit/bench

go 1.26.0

require (
	github.com/actionkit/actionkit v0.0.0
	github.com/golang-jwt/jwt/v5 v5.3.1
	github.com/gomodule/redigo v1.9.3
	github.com/jmoiron/sqlx v1.4.0
	github.com/julienschmidt/httprouter v1.3.0
	github.com/lib/pq v1.12.3
	golang.org/x/crypto v0.58.0
)

require (
	github.com/golang-migrate/migrate/v4 v4.20.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/actionkit/actionkit => ../
