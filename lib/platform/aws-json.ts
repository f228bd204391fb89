import { Agent as HttpAgent, request as httpRequest, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isServerError, isThrottlingError, isTransientError, StandardRetryStrategy } from '@smithy/core/retry';
import type { AwsCredentialIdentityProvider, EndpointV2, SdkError } from '@smithy/types';
import { type CallOutput, countAndTrace } from './aws';
import { postSigner } from './sigv4';

// AWS's JSON protocol (DynamoDB's, EventBridge's, SQS's), signed with SigV4 and sent over kept-alive
// connections: what an SDK client sends for a command whose input and output are plain JSON, without
// its per-call middleware stack (issue 46: the SDK was half of a function's CPU, 0.5-1 ms a call).
// The rest is the SDK's own pieces: its retry strategy and error classification, the service's
// exception classes, and the endpoint, region and credentials that the SDK client given resolves.

export type Output = Record<string, unknown>;

// What of an SDK client's resolved settings this takes.
export interface SdkClient {
  config: {
    region: () => Promise<string>;
    endpoint?: () => Promise<{ protocol: string; hostname: string; port?: number; path: string }>;
    serviceConfiguredEndpoint?: () => Promise<string | undefined>;
    endpointProvider: (params: { Region: string }) => EndpointV2;
    credentials: AwsCredentialIdentityProvider;
  };
}

export interface JsonService {
  label: string; // as its calls are counted and traced: 'DynamoDB', 'EventBridge', 'SQS'
  signingName: string; // 'dynamodb', 'events', 'sqs'
  target: string; // X-Amz-Target's prefix: 'DynamoDB_20120810', 'AWSEvents', 'AmazonSQS'
  version: '1.0' | '1.1';
  headers?: Record<string, string>; // sent on every call besides (SQS's x-amzn-query-mode)
  // The errors the service answers, as the SDK's classes: those a caller tells apart by class, and the rest.
  known?: Map<string, new (o: never) => Error>;
  ServiceException: new (o: { name: string; $fault: 'client' | 'server'; message: string; $metadata: Output }) => Error;
}

function exception(service: JsonService, status: number, body: Output, requestId: string | undefined): Error {
  const name =
    String(body.__type ?? '')
      .split('#')
      .pop() || (status >= 500 ? 'InternalServerError' : 'UnknownError');
  const { __type, message: m, Message, ...fields } = body;
  const [message, $metadata] = [String(m ?? Message ?? name), { httpStatusCode: status, requestId }];
  const Known = service.known?.get(name);
  if (Known) return new Known({ ...fields, message, $metadata } as never);
  return new service.ServiceException({ name, $fault: status >= 500 ? 'server' : 'client', message, $metadata });
}

const errorType = (e: SdkError) =>
  isThrottlingError(e) ? 'THROTTLING' : isTransientError(e) ? 'TRANSIENT' : isServerError(e) ? 'SERVER_ERROR' : 'CLIENT_ERROR';

// A sender of one service's operations; `call` takes the operation's name and its input on the wire.
export function awsJson(sdk: SdkClient, service: JsonService) {
  const retries = new StandardRetryStrategy(3);
  const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 50 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 50 }) };
  const contentType = `application/x-amz-json-${service.version}`;
  let target: Promise<{ url: URL; options: RequestOptions; sign: ReturnType<typeof postSigner> }> | undefined;
  // (A failed resolution is not kept: the next call tries again.)
  const resolved = () =>
    (target ??= resolve().catch((e) => {
      target = undefined;
      throw e;
    }));
  const resolve = async () => {
    const region = await sdk.config.region();
    // As the SDK chooses: an endpoint given to the client, then AWS_ENDPOINT_URL_<SERVICE> (or
    // AWS_ENDPOINT_URL), then the region's.
    const given = await sdk.config.endpoint?.();
    const configured = await sdk.config.serviceConfiguredEndpoint?.();
    const url = given
      ? new URL(`${given.protocol}//${given.hostname}${given.port ? `:${given.port}` : ''}${given.path}`)
      : new URL(configured ?? sdk.config.endpointProvider({ Region: region }).url.href);
    // The request's options, made once: a URL given to http.request is turned into them on every call.
    const https = url.protocol === 'https:';
    const options: RequestOptions = {
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      agent: agents[https ? 'https' : 'http'],
    };
    return { url, options, sign: postSigner({ service: service.signingName, region, url, credentials: sdk.config.credentials }) };
  };

  async function once(operation: string, body: string): Promise<{ status: number; body: Output; requestId?: string }> {
    const { url, options, sign } = await resolved();
    const headers = await sign({ ...service.headers, 'content-type': contentType, 'x-amz-target': `${service.target}.${operation}` }, body);
    return new Promise((done, fail) => {
      const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)({ ...options, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', fail);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: Output;
          try {
            parsed = text ? JSON.parse(text) : {};
          } catch {
            parsed = { __type: res.statusCode && res.statusCode >= 500 ? 'InternalServerError' : 'SerializationException', message: text.slice(0, 200) };
          }
          done({ status: res.statusCode ?? 0, body: parsed, requestId: res.headers['x-amzn-requestid'] as string | undefined });
        });
      });
      req.on('error', fail);
      req.end(body);
    });
  }

  async function call(operation: string, wire: object): Promise<CallOutput & Output> {
    const body = JSON.stringify(wire);
    let token = await retries.acquireInitialRetryToken(service.signingName);
    for (let attempts = 1; ; attempts++) {
      let error: SdkError;
      try {
        const res = await once(operation, body);
        if (res.status === 200) {
          retries.recordSuccess(token);
          return { ...res.body, $metadata: { httpStatusCode: 200, requestId: res.requestId, attempts } };
        }
        error = exception(service, res.status, res.body, res.requestId) as SdkError;
      } catch (e) {
        error = e as SdkError;
      }
      try {
        token = await retries.refreshRetryTokenForRetry(token, { errorType: errorType(error) });
      } catch {
        if (error.$metadata) error.$metadata.attempts = attempts;
        throw error;
      }
    }
  }
  return { call };
}

// An SDK client's `send` for the commands named (by class: a bundle's minified names say nothing),
// each counted and traced as the SDK client's calls are (./aws.ts), over awsJson. Their inputs
// must be plain JSON (no Date, no bytes), as the commands' callers here send them.
export function overJson<C extends SdkClient>(sdk: C, service: JsonService, commands: Array<[new (...args: never[]) => object, string]>) {
  const json = awsJson(sdk, service);
  const names = new Map<unknown, string>(commands);
  return {
    send: ((command: { input: object }) => {
      const operation = names.get(command.constructor);
      if (!operation) return Promise.reject(new Error(`No ${service.label} operation for ${command.constructor.name}`));
      return countAndTrace(service.label, operation, command.input, (given) => json.call(operation, given));
    }) as unknown as C extends { send: infer S } ? S : never,
  };
}
