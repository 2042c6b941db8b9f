/**
 * The binary command format between the Python worker and the GPU thread.
 *
 * Python (src/webarray/executors/browser.py) encodes commands; the GPU side
 * (processor.ts) decodes them. Both transports carry the same bytes: the
 * SharedArrayBuffer ring and the JSPI direct call. tests/test_browser.py checks
 * that every constant below has the same value in browser.py.
 *
 * A record is a sequence of little-endian u32 words, padded to RECORD_ALIGN
 * bytes. Word 0 is the opcode, word 1 the record's size in bytes (padding
 * included). The remaining words, per opcode:
 *
 *   ALLOC    seq handle nbytes            seq 0: no reply (an error is reported later)
 *   FREE     handle
 *   WRITE    handle offset nbytes data... offset and nbytes multiples of 4
 *   READ     seq handle offset nbytes     reply: the bytes
 *   COMPILE  seq kernel nbytes utf8...    reply: empty, or KERNEL with the messages
 *   DISPATCH kernel gx gy gz nbind nuni bindings[nbind] uniforms[nuni bytes]...
 *   FLUSH                                 submit what is recorded
 *   SYNC     seq                          reply once all submitted work has finished
 *   INFO     seq                          reply: JSON (backend, adapter, limits, first_handle:
 *                                         the executor's first buffer handle); after a loss
 *                                         WebGPU answers it on a fresh adapter and device
 *   PING     seq                          reply at once (measures the transport)
 *   DESTROY  seq                          destroy the device; later commands fail with LOST
 *
 * Every reply carries a status; a reply also reports the first error that happened
 * asynchronously since the previous reply (a failed non-blocking ALLOC, a
 * validation error of a dispatch), so errors surface at the next blocking call.
 */

export const RECORD_ALIGN = 8;

export const OP_ALLOC = 1;
export const OP_FREE = 2;
export const OP_WRITE = 3;
export const OP_READ = 4;
export const OP_COMPILE = 5;
export const OP_DISPATCH = 6;
export const OP_FLUSH = 7;
export const OP_SYNC = 8;
export const OP_INFO = 9;
export const OP_PING = 10;
export const OP_DESTROY = 11;
export const OP_SIMULATE_LOSS = 12; // testing aid: [seq, ms] lose the device (WebGL2: restore after ms)

export const STATUS_OK = 0;
export const STATUS_KERNEL = 1; // shader failed to compile
export const STATUS_OUT_OF_MEMORY = 2;
export const STATUS_DEVICE_LOST = 3;
export const STATUS_VALIDATION = 4; // another GPU validation error
export const STATUS_INTERNAL = 5; // a bug or an unexpected exception on the GPU side
export const STATUS_UNSUPPORTED = 6; // the backend cannot run here

/** What the ring's producer returns instead of a status when the transport failed. */
export const TRANSPORT_TIMEOUT = -1; // no progress (CTRL_TAIL, CTRL_PROGRESS) within the timeout
export const TRANSPORT_LOST = -2; // the GPU thread stopped (CTRL_LOST) and does not answer

/**
 * Control words of the shared ring (Int32Array indices). HEAD and TAIL count bytes
 * written and consumed, wrapping at 2^32; the ring position is the count modulo the
 * ring size (a power of two).
 */
export const CTRL_HEAD = 0;
export const CTRL_TAIL = 1;
export const CTRL_REPLY_SEQ = 2;
export const CTRL_REPLY_STATUS = 3;
export const CTRL_REPLY_LEN = 4;
export const CTRL_LOST = 5;
/** Counts the GPU thread's progress: finished pieces of GPU work (backend.onProgress).
 * The Python worker waits as long as this or CTRL_TAIL moves (ring.ts, RingProducer). */
export const CTRL_PROGRESS = 6;
export const CTRL_WORDS = 16;

export type Status =
  | typeof STATUS_OK
  | typeof STATUS_KERNEL
  | typeof STATUS_OUT_OF_MEMORY
  | typeof STATUS_DEVICE_LOST
  | typeof STATUS_VALIDATION
  | typeof STATUS_INTERNAL
  | typeof STATUS_UNSUPPORTED;

/** An error the GPU side reports to Python with a status other than OK. */
export class DeviceError extends Error {
  constructor(
    readonly status: Status,
    message: string,
  ) {
    super(message);
    this.name = "DeviceError";
  }
}

export const statusName = (s: number): string =>
  [
    "ok",
    "kernel error",
    "out of memory",
    "device lost",
    "validation error",
    "internal error",
    "unsupported",
  ][s] ?? `status ${s}`;
