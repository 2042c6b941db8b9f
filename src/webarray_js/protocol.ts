/**
 * The binary command format between the Python worker and the GPU thread.
 *
 * Python (src/webarray/executors/browser.py) encodes commands; the GPU side
 * (processor.ts) decodes them. Both transports carry the same bytes: the
 * SharedArrayBuffer ring and the JSPI direct call. The constants come from
 * src/webarray/executors/wire.py (generated into wire.ts).
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

// The numbers (opcodes, statuses, transport results, control words) are written once, in
// src/webarray/executors/wire.py, and generated into wire.ts.
export * from "./wire";
import type { STATUS_DEVICE_LOST, STATUS_INTERNAL, STATUS_KERNEL, STATUS_OK, STATUS_OUT_OF_MEMORY,
  STATUS_UNSUPPORTED, STATUS_VALIDATION } from "./wire";

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
