/**
 * Why a fetch() failed, in a few words: "no answer within 2000 ms", "ECONNREFUSED", "ENOTFOUND". Undici
 * wraps the socket error as `cause`, sometimes as an AggregateError of one error per address tried.
 */
export function networkFailureReason(err: unknown, timeoutMs: number): string {
  if ((err as Error).name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = (err as { cause?: { code?: string; message?: string; errors?: Array<{ code?: string }> } }).cause;
  return cause?.code ?? cause?.errors?.find((e) => e.code)?.code ?? (cause?.message || (err as Error).message);
}
