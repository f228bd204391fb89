import type { APIGatewayProxyResult } from 'aws-lambda';
import { openApiDocument } from '../../lib/api/openapi';
import { routes, serving } from '../../lib/api/routes';

// GET /openapi.json: public, unsigned, built once per container from the request schemas.
const body = JSON.stringify(openApiDocument());

export const handler = serving(
  routes.getOpenApiDocument,
  async (): Promise<APIGatewayProxyResult> => ({
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body,
  }),
);
