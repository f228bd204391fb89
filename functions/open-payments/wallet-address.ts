import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { node } from '../../lib/config';
import { problem } from '../../lib/http/problem';
import { logger } from '../../lib/log';
import { observed } from '../../lib/tracing';
import { publishedKeys, publishedWalletAddress } from '../../lib/wallet-addresses';
import { MAX_ADDRESS_LENGTH } from '../../lib/wallet-addresses/schemas';

// Open Payments resource server: GET <wallet address> and GET <wallet address>/jwks.json. Public,
// and read from browsers: CORS on every answer, HEAD as GET without the body, and preflights.
const CORS = { 'access-control-allow-origin': '*' };
const json = (statusCode: number, body: unknown, type = 'application/json'): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': type, ...CORS },
  body: JSON.stringify(body),
});

export const handler = observed(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  if (event.httpMethod === 'OPTIONS') {
    return {
      statusCode: 204,
      headers: { ...CORS, 'access-control-allow-methods': 'GET, HEAD, OPTIONS', 'access-control-allow-headers': '*', 'access-control-max-age': '86400' },
      body: '',
    };
  }
  const answer = await get({ ...event, httpMethod: event.httpMethod === 'HEAD' ? 'GET' : event.httpMethod });
  return event.httpMethod === 'HEAD' ? { ...answer, body: '' } : answer;
});

const MAX_PATH = MAX_ADDRESS_LENGTH + '/jwks.json'.length;

async function get(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  if (event.httpMethod !== 'GET')
    return {
      ...json(405, problem(405, 'method_not_allowed', 'Only GET, HEAD and OPTIONS are served here'), 'application/problem+json'),
      headers: { 'content-type': 'application/problem+json', allow: 'GET, HEAD, OPTIONS', ...CORS },
    };
  // No wallet address is longer than creation allows (MAX_ADDRESS_LENGTH), so a longer path is not one; looking
  // it up would also overrun DynamoDB's 2 KB partition key.
  if (event.path.length > MAX_PATH) return json(404, problem(404, 'wallet_address_not_found', 'No wallet address at this path'), 'application/problem+json');
  try {
    const url = new URL(event.path, node.urls.walletAddresses).href;
    const isJwks = url.endsWith('/jwks.json');
    const found = isJwks ? await publishedKeys(node, url.slice(0, -'/jwks.json'.length)) : await publishedWalletAddress(node, url);
    if (!found) return json(404, problem(404, 'wallet_address_not_found', `No wallet address at ${event.path}`), 'application/problem+json');
    return json(200, found);
  } catch (error) {
    logger.error('Unhandled error', { error });
    return json(500, problem(500, 'internal_error', 'The request could not be completed'), 'application/problem+json');
  }
}
