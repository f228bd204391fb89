import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { openApiDocument } from '../../lib/openapi';

// GET /openapi.json: public, unsigned, built once per container from the request schemas.
const body = JSON.stringify(openApiDocument());

export const handler = async (): Promise<APIGatewayProxyResultV2> => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body,
});
