import { boundedFetch, errorCode, OutboundFetchError } from '../platform/net/fetch';
import { DomainError } from '../shared/errors';
import { rateErrors } from './errors';
import { ratesDocument } from './schemas';

// One GET of the FSP's rates endpoint (the pull model), validated. Every way it can fail becomes
// a rate_unavailable error that says why. The endpoint is the operator's setting (EXCHANGE_RATES_URL,
// a tenant's ratesUrl), so it may be on the FSP's own network; a redirect is not followed.
const MAX_ANSWER_BYTES = 1024 * 1024;

export async function fetchRates(endpoint: string, base: string, peerId: string | undefined, timeoutSecs: number) {
  const url = new URL(endpoint);
  url.searchParams.set('base', base);
  if (peerId !== undefined) url.searchParams.set('peerId', peerId);
  const who = `The FSP's rates endpoint (${url.origin}${url.pathname})`;
  let text: string;
  try {
    const res = await boundedFetch(
      url,
      { headers: { accept: 'application/json' }, redirect: 'error' },
      { allowPrivate: true, maxBytes: MAX_ANSWER_BYTES, timeoutMs: timeoutSecs * 1000 },
    );
    if (!res.ok) throw rateErrors.unavailable(`${who} answered HTTP ${res.status} for base ${base}`);
    text = await res.text();
  } catch (e) {
    if (e instanceof DomainError) throw e;
    const reason = e instanceof OutboundFetchError ? e.reason : undefined;
    if (reason === 'timeout') throw rateErrors.unavailable(`${who} did not answer within ${timeoutSecs} s`);
    if (reason === 'too_large') throw rateErrors.unavailable(`${who} answered more than ${MAX_ANSWER_BYTES} bytes`);
    if (reason === 'too_many_redirects') throw rateErrors.unavailable(`${who} answered a redirect, which is not followed`);
    throw rateErrors.unavailable(`${who} could not be reached: ${errorCode(e) ?? (e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw rateErrors.unavailable(`${who} answered something that is not JSON`);
  }
  const parsed = ratesDocument.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw rateErrors.unavailable(`${who} answered an invalid rates document: ${issue.path.join('.') || '(root)'} ${issue.message}`);
  }
  if (parsed.data.base !== base) {
    throw rateErrors.unavailable(`${who} answered rates for base ${parsed.data.base}, not ${base}`);
  }
  return parsed.data.rates;
}
