import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { deployment, tenantNode } from '../../lib/api/context';
import { httpErrors } from '../../lib/api/http/errors';
import { problemResponse } from '../../lib/api/http/problem';
import { lowerCaseHeaders, requestBody } from '../../lib/api/http/request';
import { bearerToken } from '../../lib/api/http/schemas';
import { handlePacket } from '../../lib/ilp/connector';
import { forwardPacket } from '../../lib/payments/forward';
import { peerForToken } from '../../lib/peers';
import { observed } from '../../lib/platform/tracing';
import { commonErrors } from '../../lib/shared/errors';
import { peering } from './peering';

// The ILP connector (ilp-connector-service): POST /ilp on its own REST API, ILP over HTTP
// (Interledger RFC 35). `Authorization: Bearer <token>` names the peer; the body is an OER ILP
// Prepare (application/octet-stream; the API passes every body base64-encoded); the answer is 200
// with the Fulfill or Reject. An unknown token is 401, a body that is not a Prepare 400, both as
// problem+json: HTTP errors are for requests that are not packets of a known peer.
const MAX_PACKET_BYTES = 64 * 1024; // an ILP packet carries at most 32 KiB of data

export const handler = observed(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  if (event.resource === '/peering') return peering(event); // beside /ilp, where peers reach this node
  try {
    const headers = lowerCaseHeaders(event.headers);
    const token = bearerToken(headers.authorization);
    if (!token) throw httpErrors.unauthorized('A peer authenticates with Authorization: Bearer <token>');
    const found = await peerForToken(deployment, token, tenantNode); // the token names the tenant too
    if (!found) throw httpErrors.unauthorized('The bearer token belongs to no peer of this node');
    if (!/^application\/octet-stream\b/i.test(headers['content-type'] ?? '')) {
      throw commonErrors.invalidRequest('An ILP packet is sent as Content-Type: application/octet-stream');
    }
    const reply = await handlePacket(found.node, found.peer, requestBody(event, MAX_PACKET_BYTES, 'an ILP packet is at most'), forwardPacket);
    return { statusCode: 200, headers: { 'content-type': 'application/octet-stream' }, body: reply.toString('base64'), isBase64Encoded: true };
  } catch (e) {
    return problemResponse(e);
  }
});
