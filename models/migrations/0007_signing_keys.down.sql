DROP TABLE IF EXISTS signing_keys;
