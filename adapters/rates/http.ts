import { networkFailureReason } from '../network-errors';
import { MalformedRateDocument, RateSourceUnavailable } from '../../core/rates/rates';

/** A rate feed is a few kilobytes; anything near this size is not one. */
const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;

/**
 * GETs a JSON document with a deadline and a size cap. Network failures, timeouts, 5xx and 429 are
 * retryable; other 4xx are not (the same request will be refused again); a body that is not JSON is a
 * malformed document.
 */
export async function fetchJsonDocument(url: string, options: { timeoutMs: number; label: string }): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'follow',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (err) {
    const reason = networkFailureReason(err, options.timeoutMs);
    throw new RateSourceUnavailable(`${options.label}: ${new URL(url).host} could not be reached (${reason})`, true);
  }
  if (!response.ok) {
    await response.body?.cancel();
    const retryable = response.status >= 500 || response.status === 429 || response.status === 408;
    throw new RateSourceUnavailable(`${options.label}: ${new URL(url).host} answered HTTP ${response.status}`, retryable);
  }
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_DOCUMENT_BYTES) {
    await response.body?.cancel();
    throw new MalformedRateDocument(`${options.label}: the document is ${declared} bytes, more than a rate list can be`);
  }
  let text: string;
  try {
    text = await readCapped(response, options.label);
  } catch (err) {
    if (err instanceof MalformedRateDocument) throw err;
    throw new RateSourceUnavailable(`${options.label}: the answer from ${new URL(url).host} broke off (${(err as Error).message})`, true);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedRateDocument(`${options.label}: the document is not JSON (starts with ${JSON.stringify(text.slice(0, 40))})`);
  }
}

async function readCapped(response: Response, label: string): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel();
      throw new MalformedRateDocument(`${label}: the document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
