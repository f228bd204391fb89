import { DomainError } from '../errors';
import { tracedFetch } from '../tracing';
import { rateErrors } from './errors';
import { ratesDocument } from './schemas';

// One GET of the FSP's rates endpoint (the pull model), validated. Every way it can fail becomes
// a rate_unavailable error that says why.
const MAX_ANSWER_BYTES = 1024 * 1024;

export async function fetchRates(endpoint: string, base: string, peerId: string | undefined, timeoutSecs: number) {
  const url = new URL(endpoint);
  url.searchParams.set('base', base);
  if (peerId !== undefined) url.searchParams.set('peerId', peerId);
  const who = `The FSP's rates endpoint (${url.origin}${url.pathname})`;
  let text: string;
  try {
    const res = await tracedFetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutSecs * 1000), redirect: 'error' });
    if (!res.ok) {
      await res.body?.cancel();
      throw rateErrors.unavailable(`${who} answered HTTP ${res.status} for base ${base}`);
    }
    text = await res.text();
  } catch (e) {
    if (e instanceof DomainError) throw e;
    const err = e as Error & { cause?: { code?: string } };
    if (err.name === 'TimeoutError' || err.name === 'AbortError') throw rateErrors.unavailable(`${who} did not answer within ${timeoutSecs} s`);
    throw rateErrors.unavailable(`${who} could not be reached: ${err.cause?.code ?? err.message}`);
  }
  if (text.length > MAX_ANSWER_BYTES) throw rateErrors.unavailable(`${who} answered more than ${MAX_ANSWER_BYTES} bytes`);
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
