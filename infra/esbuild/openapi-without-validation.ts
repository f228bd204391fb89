// The Open Payments client validates responses against its OpenAPI documents only when asked to
// (lib/open-payments/client.ts does not: the YAML documents it would read are not in a bundle
// anyway). Yet it imports @interledger/openapi for an enum, which carries ajv, a YAML parser and a
// JSON-schema resolver: 300 KB. serverless.yml aliases that package to this file in bundles.
export const HttpMethod = { GET: 'get', PUT: 'put', POST: 'post', DELETE: 'delete', OPTIONS: 'options', HEAD: 'head', PATCH: 'patch', TRACE: 'trace' } as const;
export const isHttpMethod = (o: unknown) => Object.values(HttpMethod).includes(o as never);
export const isValidationError = (err: { errors?: unknown }) => Array.isArray(err?.errors);
export function createOpenAPI(): never {
  throw new Error('OpenAPI validation is left out of the bundles; create the Open Payments client with validateResponses: false');
}
