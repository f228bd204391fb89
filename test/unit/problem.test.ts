import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { httpErrors } from '../../lib/api/http/errors';
import { openPaymentsApi } from '../../lib/api/http/open-payments';
import { problemResponse } from '../../lib/api/http/problem';
import { lowerCaseHeaders, requestBody } from '../../lib/api/http/request';
import { ledgerErrors } from '../../lib/ledger/errors';
import { openPaymentsErrors } from '../../lib/open-payments/errors';
import { quoteErrors } from '../../lib/quotes/errors';
import { invalidFields } from '../../lib/shared/errors';
import { type Node, OPERATOR } from '../../lib/shared/node';

const PROBLEM = { 'content-type': 'application/problem+json' };

describe('problemResponse: anything thrown, as problem+json', () => {
  it('answers a catalog error with its status, code, detail and fields', () => {
    const fields = [{ field: 'amount', message: 'is required' }];
    expect(problemResponse(invalidFields(fields))).toEqual({
      statusCode: 400,
      headers: PROBLEM,
      body: '{"type":"urn:payment-service:problem:invalid_request","title":"Invalid request","status":400,"detail":"amount is required","code":"invalid_request","errors":[{"field":"amount","message":"is required"}]}',
    });
    expect(problemResponse(ledgerErrors.balanceTooLarge()).statusCode).toBe(422);
    expect(problemResponse(openPaymentsErrors.authServerUnavailable()).statusCode).toBe(503);
  });

  it('answers anything else 500, without saying what it was', () => {
    const internal =
      '{"type":"urn:payment-service:problem:internal_error","title":"Internal error","status":500,"detail":"The request could not be completed; it is safe to retry","code":"internal_error"}';
    for (const thrown of [new Error('the table is gone'), 'a string', undefined]) {
      expect(problemResponse(thrown)).toEqual({ statusCode: 500, headers: PROBLEM, body: internal });
    }
    expect(JSON.parse(problemResponse(new Error('x'), { internalDetail: 'Not now' }).body).detail).toBe('Not now');
  });

  it('answers an AWS service that throttles or fails, past its retries, 503 with Retry-After', () => {
    const aws = (name: string, status: number, extra: object = {}) =>
      Object.assign(new Error(name), { name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status }, ...extra });
    const down = [
      aws('ThrottlingException', 400),
      aws('ProvisionedThroughputExceededException', 400),
      aws('RequestLimitExceeded', 400),
      aws('InternalServerError', 500),
      aws('ServiceUnavailable', 503),
      aws('TransactionCanceledException', 400, { CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }] }),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' }),
    ];
    for (const thrown of down) {
      const answer = problemResponse(thrown);
      expect([answer.statusCode, answer.headers]).toEqual([503, { ...PROBLEM, 'retry-after': '1' }]);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 503, code: 'dependency_unavailable' });
    }
    expect(JSON.parse(problemResponse(down[0]).body).detail).toContain('(ThrottlingException)');
    expect(JSON.parse(problemResponse(down[6]).body).detail).toContain('(ECONNREFUSED)');
    // The request's own fault stays what it was: a refused condition is no outage.
    const refused = aws('TransactionCanceledException', 400, { CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] });
    expect(problemResponse(refused).statusCode).toBe(500);
    expect(problemResponse(aws('ValidationException', 400)).statusCode).toBe(500);
  });

  it("sends the headers a refusal names: Allow with a 405, WWW-Authenticate with GNAP's 401 and 403", () => {
    const notServed = problemResponse(httpErrors.methodNotAllowed('DELETE is not served at /assets; GET, POST is', ['GET', 'POST']));
    expect([notServed.statusCode, notServed.headers]).toEqual([405, { ...PROBLEM, allow: 'GET, POST' }]);
    const refused = problemResponse(httpErrors.tokenForbids('Not yours', 'https://auth.example'));
    expect([refused.statusCode, refused.headers]).toEqual([403, { ...PROBLEM, 'www-authenticate': 'GNAP as_uri=https://auth.example' }]);
  });

  it("takes an API's own statuses, members and headers", () => {
    const api = {
      statuses: { 422: 400 },
      members: (p: { code: string }) => ({ error: { code: p.code } }),
      headers: { 'access-control-allow-origin': '*' },
    };
    expect(problemResponse(quoteErrors.amountTooSmall(), api)).toEqual({
      statusCode: 400,
      headers: { 'access-control-allow-origin': '*', ...PROBLEM },
      body: '{"type":"urn:payment-service:problem:amount_too_small","title":"Invalid request","status":400,"detail":"The quote would deliver nothing at this rate and scale","code":"amount_too_small","error":{"code":"amount_too_small"}}',
    });
  });
});

describe("the Open Payments APIs' problems", () => {
  const event = (method: string, path: string) =>
    ({
      httpMethod: method,
      path,
      headers: {},
      multiValueQueryStringParameters: null,
      queryStringParameters: null,
      pathParameters: null,
      body: null,
      isBase64Encoded: false,
    }) as APIGatewayProxyEvent;
  const api = openPaymentsApi(
    { server: 'resourceServer', tenants: async () => ({ tenant: OPERATOR, urls: { resourceServer: 'https://rs.example' } }) as unknown as Node },
    [
      { method: 'GET', path: '/unprocessable', handler: () => Promise.reject(quoteErrors.amountTooSmall()) },
      {
        method: 'GET',
        path: '/refused',
        handler: () => Promise.reject(httpErrors.tokenRefused('No token', 'https://as.example')),
      },
    ],
  );
  const call = (method: string, path: string) => api(event(method, path), {} as Context);

  it('answer 400 for a request they cannot take, with the `error` object the specification and its client read', async () => {
    const res = await call('GET', '/unprocessable');
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      type: 'urn:payment-service:problem:amount_too_small',
      title: 'Invalid request',
      status: 400,
      detail: 'The quote would deliver nothing at this rate and scale',
      code: 'amount_too_small',
      error: { code: 'amount_too_small', description: 'The quote would deliver nothing at this rate and scale' },
    });
  });

  it('send CORS and the GNAP challenge with a refusal, and answer an unknown route 404', async () => {
    const refused = await call('GET', '/refused');
    expect(refused.statusCode).toBe(401);
    expect(refused.headers).toMatchObject({ 'access-control-allow-origin': '*', ...PROBLEM, 'www-authenticate': 'GNAP as_uri=https://as.example' });
    const nowhere = await call('POST', '/nowhere');
    expect([nowhere.statusCode, JSON.parse(nowhere.body).detail]).toEqual([404, 'No route POST /nowhere']);
  });
});

describe('reading a request', () => {
  it('names headers in lower case: the last value of a name, every value of a list', () => {
    expect(lowerCaseHeaders({ 'Content-Type': 'a', 'content-type': 'b', Gone: undefined })).toEqual({ 'content-type': 'b' });
    expect(lowerCaseHeaders({ 'Idempotency-Key': ['k1'], 'idempotency-key': ['k2'] })).toEqual({ 'idempotency-key': ['k1', 'k2'] });
    expect(lowerCaseHeaders(null)).toEqual({});
  });

  it('reads the body as bytes, base64 or text, and refuses one over the limit with 413', () => {
    expect(requestBody({ body: 'AP8=', isBase64Encoded: true })).toEqual(Buffer.from([0, 255]));
    expect(requestBody({ body: 'é', isBase64Encoded: false })).toEqual(Buffer.from('é'));
    expect(requestBody({ body: null, isBase64Encoded: false })).toEqual(Buffer.alloc(0));
    expect(() => requestBody({ body: 'abcd', isBase64Encoded: false }, 3, 'a packet is at most')).toThrow(
      expect.objectContaining({ status: 413, code: 'payload_too_large', message: 'The body is 4 bytes; a packet is at most 3' }),
    );
  });
});
