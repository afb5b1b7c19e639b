DROP TABLE IF EXISTS webhook_deliveries;
DROP TABLE IF EXISTS webhooks;
DROP FUNCTION IF EXISTS webhook_uuid_v7(timestamptz);
