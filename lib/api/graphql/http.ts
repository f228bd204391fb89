import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import * as z from 'zod';
import { config } from '../../platform/config';
import { logger } from '../../platform/log';
import { observed } from '../../platform/tracing';
import { type Author, authorScope, setAuthor } from '../../platform/tx';
import { invalidFields } from '../../shared/errors';
import { OPERATOR_TENANT_ID } from '../../shared/node';
import { tenantNode } from '../context';
import { httpErrors } from '../http/errors';
import { parseJsonBody } from '../http/json';
import { fieldErrors, problemResponse } from '../http/problem';
import { verifyRafikiSignature } from '../http/rafiki-signature';
import { lowerCaseHeaders, requestBody } from '../http/request';
import { signedFor } from '../http/signer';
import { recordSignature, usedSignature } from '../http/store';
import { type GraphqlRequest, runGraphql } from '.';

// POST /graphql on the Admin API: Rafiki's Admin API (lib/api/graphql), for an FSP's clients
// written for Rafiki. Signed as Rafiki signs (../http/rafiki-signature.ts), by the tenant the tenant-id
// header names or by the operator (../http/signer.ts, as every Admin request); each signature is taken once,
// queries' too (Rafiki's rule: a query may read another tenant's data for the operator). What a
// request cannot be run for is answered as the REST routes answer it (problem+json: 401, 413, 415,
// 400); a request that does not parse or breaks the schema or a limit is a GraphQL answer with 400;
// one that ran is 200, with each field's refusal in `errors` (Rafiki's code in extensions.code).

const graphqlBody = z.strictObject({
  query: z.string().min(1).max(100_000),
  variables: z.record(z.string(), z.unknown()).nullable().optional(),
  operationName: z.string().max(200).nullable().optional(),
  extensions: z.record(z.string(), z.unknown()).nullable().optional(),
});

// The body's JSON (signed in its canonical form), then, once its signature is checked, the request it holds.
const bodyOf = (headers: Record<string, string>, event: APIGatewayProxyEvent) => parseJsonBody(requestBody(event), headers['content-type']) ?? null;

function requestOf(json: unknown): GraphqlRequest {
  const parsed = graphqlBody.safeParse(json);
  if (!parsed.success) throw invalidFields(fieldErrors(parsed.error));
  return parsed.data;
}

const answer = (status: number, body: unknown): APIGatewayProxyResult => ({
  statusCode: status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

async function serve(event: APIGatewayProxyEvent, lambda: Context): Promise<{ response: APIGatewayProxyResult; tenant?: string; operation?: string | null }> {
  const headers = lowerCaseHeaders(event.headers);
  const json = bodyOf(headers, event);
  const node = await tenantNode(headers['tenant-id'] ?? OPERATOR_TENANT_ID);
  const signature = await signedFor(node, (secret) => verifyRafikiSignature(headers.signature, secret, json, Date.now()));
  const request = requestOf(json);
  if (!(await recordSignature(usedSignature(node!, signature.mac, signature.t)))) {
    throw httpErrors.unauthorized('This signature was already used; sign each request afresh');
  }
  // The audit trail's author of what it changes (lib/platform/tx): the signing tenant, the operation.
  const author: Author = {
    actor: { kind: 'key', name: signature.signer },
    action: `POST /graphql ${request.operationName ?? ''}`.trim(),
    operationId: request.operationName ?? 'graphql',
    requestId: lambda.awsRequestId,
  };
  const { refused, result } = await authorScope(() => {
    setAuthor(author);
    return runGraphql(node!, request, { introspection: config.GRAPHQL_INTROSPECTION, lambda });
  });
  return { response: answer(refused ? 400 : 200, result), tenant: node!.tenant.id, operation: request.operationName };
}

export function graphqlHandler() {
  return observed(async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const started = performance.now();
    const served = await serve(event, context).catch((e) => ({ response: problemResponse(e), tenant: undefined, operation: undefined }));
    logger.info('request', {
      route: 'POST /graphql',
      operation: served.operation,
      tenant: served.tenant,
      status: served.response.statusCode,
      ms: Math.round((performance.now() - started) * 10) / 10,
      requestId: context.awsRequestId,
    });
    return served.response;
  });
}
