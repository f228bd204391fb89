import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { tenantNode } from '../../lib/api/context';
import { parseJsonBody } from '../../lib/api/http/json';
import { fieldErrors, problemResponse } from '../../lib/api/http/problem';
import { lowerCaseHeaders, requestBody } from '../../lib/api/http/request';
import { acceptPeering, autoPeeringConnector } from '../../lib/peers';
import { peeringRequest } from '../../lib/peers/schemas';
import { invalidFields } from '../../lib/shared/errors';
import { OPERATOR_TENANT_ID } from '../../lib/shared/node';

// POST /peering on the connector's API: another node's peering request (Rafiki's auto-peering
// shapes: docs/interledger.md, "Peering by URL"), for the operator's tenant (the connector's
// address is the operator's; a tenant peers by URL from its side only). A refusal is problem+json
// with Rafiki's `error` object too, whose `type` Rafiki's side reads.
const RAFIKI_TYPES: Record<string, string> = { unknown_asset: 'UnknownAsset', peer_endpoint_internal: 'InvalidPeerIlpConfiguration' };
const asRafiki = {
  members: (p: { status: number; code: string; detail: string }) => ({
    error: { code: p.status, message: p.detail, type: RAFIKI_TYPES[p.code] ?? 'InvalidPeeringRequest' },
  }),
};

export async function peering(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  try {
    const node = (await tenantNode(OPERATOR_TENANT_ID))!;
    autoPeeringConnector(node); // off: refused whatever the body
    const json = parseJsonBody(requestBody(event), lowerCaseHeaders(event.headers)['content-type']);
    const parsed = peeringRequest.safeParse(json);
    if (!parsed.success) throw invalidFields(fieldErrors(parsed.error));
    const answer = await acceptPeering(node, parsed.data);
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) };
  } catch (e) {
    return problemResponse(e, asRafiki);
  }
}
