import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { node } from '../../lib/config';
import { DomainError } from '../../lib/errors';
import { fromDomainError, problem, problemResponse } from '../../lib/http/problem';
import { bearerToken, lowerCaseHeaders } from '../../lib/http/schemas';
import { handlePacket } from '../../lib/ilp/connector';
import { logger } from '../../lib/log';
import { peerForToken } from '../../lib/peers';
import { observed } from '../../lib/tracing';

// The ILP connector (ilp-connector-service): POST /ilp on its own REST API, ILP over HTTP
// (Interledger RFC 35). `Authorization: Bearer <token>` names the peer; the body is an OER ILP
// Prepare (application/octet-stream; the API passes every body base64-encoded); the answer is 200
// with the Fulfill or Reject. An unknown token is 401, a body that is not a Prepare 400, both as
// problem+json: HTTP errors are for requests that are not packets of a known peer.
const MAX_PACKET_BYTES = 64 * 1024; // an ILP packet carries at most 32 KiB of data

export const handler = observed(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  try {
    const headers = lowerCaseHeaders(event.headers);
    const token = bearerToken(headers.authorization);
    if (!token) throw new DomainError('unauthorized', 'unauthorized', 'A peer authenticates with Authorization: Bearer <token>');
    const peer = await peerForToken(node, token);
    if (!peer) throw new DomainError('unauthorized', 'unauthorized', 'The bearer token belongs to no peer of this node');
    if (!/^application\/octet-stream\b/i.test(headers['content-type'] ?? '')) {
      throw new DomainError('invalid', 'invalid_request', 'An ILP packet is sent as Content-Type: application/octet-stream');
    }
    const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
    if (body.length > MAX_PACKET_BYTES)
      throw new DomainError('too_large', 'payload_too_large', `The body is ${body.length} bytes; an ILP packet is at most ${MAX_PACKET_BYTES}`);
    const reply = await handlePacket(node, peer, body);
    return { statusCode: 200, headers: { 'content-type': 'application/octet-stream' }, body: reply.toString('base64'), isBase64Encoded: true };
  } catch (e) {
    if (e instanceof DomainError) return problemResponse(fromDomainError(e));
    logger.error('Unhandled error', { error: e });
    return problemResponse(problem(500, 'internal_error', 'The request could not be completed; it is safe to retry'));
  }
});
