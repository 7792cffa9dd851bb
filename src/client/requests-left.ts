// The client's one ordering rule, used inside src/client/ only: the request core before it hands
// over an answer whose slot went to a waiting send, paginate once it asked for the next page.
// Callers of the client know nothing of it.

/**
 * Resolves once the requests made so far in this turn of the event loop have left. undici frees a
 * keep-alive socket from an immediate after its answer, and writes the next request on a reused
 * socket only from a later immediate (having first checked that the server did not close it): a
 * request made now leaves two check phases on, and whatever runs before then delays it.
 *
 * So the client, with more sends waiting than slots, awaits this between an answer and handing it
 * over: the answer's slot has gone to the next request, which leaves first, and the answers of one
 * turn no longer hold back each other's successors (16 children in flight at 30 ms: 460-465 -> 477-483
 * requests/s, the plain loop's 484; BENCHMARKS.md). A listing awaits it once it asked for the
 * next page, so that page is on the wire while the caller writes this one.
 */
export function requestsLeft(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
