import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { deployment, walletAddressNode } from '../../lib/api/context';
import { httpErrors } from '../../lib/api/http/errors';
import { type ProblemApi, problemResponse } from '../../lib/api/http/problem';
import { lowerCaseHeaders } from '../../lib/api/http/request';
import { SPSP_CONTENT_TYPE, spspAnswer } from '../../lib/ilp/spsp';
import { serviceIdentity, serviceWalletAddress } from '../../lib/open-payments/identity';
import { observed } from '../../lib/platform/tracing';
import { sameAddress } from '../../lib/shared/wallet-address-url';
import { publishedKeys, publishedWalletAddress } from '../../lib/wallet-addresses';
import { walletAddressErrors } from '../../lib/wallet-addresses/errors';
import { MAX_ADDRESS_LENGTH } from '../../lib/wallet-addresses/schemas';

// Open Payments resource server: GET <wallet address> and GET <wallet address>/jwks.json. Public,
// and read from browsers: CORS on every answer, HEAD as GET without the body, and preflights. A GET
// of a wallet address that accepts application/spsp4+json is SPSP's (lib/ilp/spsp.ts), unless
// ENABLE_SPSP_PAYMENT_POINTERS is off: a new STREAM connection each time, never cached.
const CORS = { 'access-control-allow-origin': '*' };
const PROBLEMS: ProblemApi = { headers: CORS, internalDetail: 'The request could not be completed' };

export const handler = observed(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  if (event.httpMethod === 'OPTIONS') {
    return {
      statusCode: 204,
      headers: { ...CORS, 'access-control-allow-methods': 'GET, HEAD, OPTIONS', 'access-control-allow-headers': '*', 'access-control-max-age': '86400' },
      body: '',
    };
  }
  let answer: APIGatewayProxyResult;
  try {
    const spsp = lowerCaseHeaders(event.headers).accept?.includes(SPSP_CONTENT_TYPE) === true;
    const { found, type } = await get(event.httpMethod === 'HEAD' ? 'GET' : event.httpMethod, event.path, spsp);
    const headers: Record<string, string> = type === SPSP_CONTENT_TYPE ? { 'content-type': type, 'cache-control': 'no-store' } : { 'content-type': type };
    answer = { statusCode: 200, headers: { ...headers, ...CORS }, body: JSON.stringify(found) };
  } catch (e) {
    answer = problemResponse(e, PROBLEMS);
  }
  return event.httpMethod === 'HEAD' ? { ...answer, body: '' } : answer;
});

const MAX_PATH = MAX_ADDRESS_LENGTH + '/jwks.json'.length;

async function get(method: string, path: string, spsp: boolean): Promise<{ found: unknown; type: string }> {
  if (method !== 'GET') throw httpErrors.methodNotAllowed('Only GET, HEAD and OPTIONS are served here', ['GET', 'HEAD', 'OPTIONS']);
  // No wallet address is longer than creation allows (MAX_ADDRESS_LENGTH), so a longer path is not one; looking
  // it up would also overrun DynamoDB's 2 KB partition key.
  if (path.length > MAX_PATH) throw walletAddressErrors.notFound('at this path');
  const url = new URL(path, deployment.urls.walletAddresses).href;
  const isJwks = url.endsWith('/jwks.json');
  const address = isJwks ? url.slice(0, -'/jwks.json'.length) : url;
  const node = await walletAddressNode(address); // the tenant whose prefix it is under
  if (spsp && !isJwks && node.spspEnabled) {
    const answer = await spspAnswer(node, url); // none for an inactive one, as Rafiki
    if (!answer) throw walletAddressErrors.notFound(`at ${path}`);
    return { found: answer, type: SPSP_CONTENT_TYPE };
  }
  // The node's own client address is published by its first use; asked for before that (an app that
  // signs with the node's key, as Rafiki's clients do), it is published now.
  if (sameAddress(address, serviceWalletAddress(node))) await serviceIdentity(node);
  const found = isJwks ? await publishedKeys(node, address) : await publishedWalletAddress(node, url);
  if (!found) throw walletAddressErrors.notFound(`at ${path}`);
  return { found, type: 'application/json' };
}
