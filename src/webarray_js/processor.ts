/**
 * Decodes command records (protocol.ts) and runs them on a backend. Both transports
 * use it: the ring consumer on the GPU thread (ring.ts) and the JSPI direct path on
 * the Python thread (bridge.ts). Records that need no reply run synchronously; a
 * request returns a promise that settles after its reply has been sent.
 */

import type { Backend } from "./backend";
import {
  DeviceError,
  OP_ALLOC,
  OP_COMPILE,
  OP_DESTROY,
  OP_DISPATCH,
  OP_FLUSH,
  OP_FREE,
  OP_INFO,
  OP_PING,
  OP_READ,
  OP_SIMULATE_LOSS,
  OP_SYNC,
  OP_WRITE,
  STATUS_DEVICE_LOST,
  STATUS_INTERNAL,
  STATUS_OK,
  STATUS_UNSUPPORTED,
  type Status,
} from "./protocol";

/** Where replies go: the shared window and control words, or a local buffer. */
export interface ReplySink {
  /** The largest payload a reply can carry. */
  readonly capacity: number;
  /** Room for a payload of nbytes; throws when the window is smaller. */
  payload(nbytes: number): Uint8Array;
  send(seq: number, status: Status, nbytes: number): void;
  /** Withdraws a markLost once a fresh device has replaced the lost one. */
  clearLost?(): void;
}

/** A backend that can hand its work to a fresh device after a loss (WebGPU: a new
 * adapter and a new device, since an adapter hands out one device only). */
interface Renewable {
  renew(): Promise<Backend>;
}

const renewable = (b: Backend): b is Backend & Renewable =>
  typeof (b as Partial<Renewable>).renew === "function";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function asDeviceError(e: unknown): DeviceError {
  if (e instanceof DeviceError) return e;
  const detail = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return new DeviceError(STATUS_INTERNAL, `unexpected error on the GPU thread: ${detail}`);
}

export class Processor {
  private pending: DeviceError | null = null;
  /** Above every handle allocated so far, on any device: the INFO reply gives it to a
   * new executor as its first handle, so that frees still coming from an executor of a
   * lost device never reach the buffers of the fresh one. */
  private nextHandle = 1;

  /** backend is null when it failed to start; every request then answers startError. */
  constructor(
    private backend: Backend | null,
    private readonly sink: ReplySink,
    private readonly startError: DeviceError | null = null,
  ) {}

  /** Submit what is recorded: called when no further command is waiting. */
  idle(): void {
    if (this.backend && !this.backend.lost) {
      try {
        this.backend.flush();
      } catch (e) {
        this.pending ??= asDeviceError(e);
      }
    }
  }

  /** Runs one record. words and bytes view the same record (4-byte aligned). */
  handle(words: Uint32Array, bytes: Uint8Array): Promise<void> | undefined {
    const op = words[0];
    const b = this.backend;
    // A new executor starts with INFO: after a loss it gets a fresh device where the
    // backend can make one (WebGL2 restores its context in place instead).
    if (op === OP_INFO && b?.lost && renewable(b)) return this.reply(words[2], this.renew(b), -1);
    if (!b || b.lost) {
      const seq = this.requestSeq(op, words);
      if (seq === 0) return undefined;
      const error = b?.lost
        ? new DeviceError(STATUS_DEVICE_LOST, b.lost)
        : (this.startError ?? new DeviceError(STATUS_INTERNAL, "no GPU backend"));
      return this.reply(seq, Promise.reject(error));
    }
    try {
      switch (op) {
        case OP_ALLOC: {
          const seq = words[2];
          if (words[3] >= this.nextHandle) this.nextHandle = words[3] + 1;
          const done = b.alloc(words[3], words[4], seq !== 0);
          return seq ? this.reply(seq, done) : undefined;
        }
        case OP_FREE:
          b.free(words[2]);
          return undefined;
        case OP_WRITE:
          b.write(words[2], words[3], bytes.subarray(20, 20 + words[4]));
          return undefined;
        case OP_READ:
          return this.reply(words[2], b.read(words[3], words[4], words[5], (n) => this.sink.payload(n)), words[5]);
        case OP_COMPILE:
          // TextDecoder refuses views of shared memory: slice copies
          return this.reply(words[2], b.compile(words[3], decoder.decode(bytes.slice(20, 20 + words[4]))));
        case OP_DISPATCH: {
          const nbind = words[6];
          const uniforms = 32 + 4 * nbind;
          const held = b.dispatch(
            words[2],
            words.subarray(8, 8 + nbind),
            bytes.subarray(uniforms, uniforms + words[7]),
            words[3],
            words[4],
            words[5],
          );
          // an error while held back is reported at the next reply, as for the dispatch
          return held?.catch((e: unknown) => void (this.pending ??= asDeviceError(e)));
        }
        case OP_FLUSH:
          b.flush();
          return undefined;
        case OP_SYNC:
          return this.reply(words[2], b.sync());
        case OP_INFO:
          return this.reply(words[2], undefined, this.info(b));
        case OP_PING:
          return this.reply(words[2], undefined);
        case OP_DESTROY:
          b.destroy();
          return this.reply(words[2], undefined);
        case OP_SIMULATE_LOSS:
          if (!b.simulateLoss) {
            throw new DeviceError(STATUS_UNSUPPORTED, `the ${b.info.backend} backend cannot simulate a device loss`);
          }
          b.simulateLoss(words[3]);
          return this.reply(words[2], undefined);
        default:
          throw new DeviceError(STATUS_INTERNAL, `unknown command ${op} (size ${words[1]})`);
      }
    } catch (e) {
      const seq = this.requestSeq(op, words);
      if (seq) return this.reply(seq, Promise.reject(e));
      this.pending ??= asDeviceError(e);
      return undefined;
    }
  }

  /** Writes the INFO reply (the backend's info and the executor's first handle); its length. */
  private info(b: Backend): number {
    const json = encoder.encode(JSON.stringify({ ...b.info, first_handle: this.nextHandle }));
    this.sink.payload(json.length).set(json);
    return json.length;
  }

  /** Replaces the lost backend by a fresh one; resolves to the length of the INFO reply.
   * When no fresh device can be had, the reply says the device is lost and why. */
  private async renew(lost: Backend & Renewable): Promise<number> {
    let fresh: Backend;
    try {
      fresh = await lost.renew();
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new DeviceError(STATUS_DEVICE_LOST, `${lost.lost}; starting a fresh device failed: ${why}`);
    }
    fresh.onLost = lost.onLost;
    fresh.onProgress = lost.onProgress;
    lost.onLost = null;
    this.backend = fresh;
    this.pending = null;
    this.sink.clearLost?.();
    return this.info(fresh);
  }

  /** The sequence number a record waits on, or 0 when it expects no reply. */
  private requestSeq(op: number, words: Uint32Array): number {
    switch (op) {
      case OP_ALLOC:
      case OP_READ:
      case OP_COMPILE:
      case OP_SYNC:
      case OP_INFO:
      case OP_PING:
      case OP_DESTROY:
      case OP_SIMULATE_LOSS:
        return words[2];
      default:
        return 0;
    }
  }

  /** Sends the reply to seq once work is done; work resolving to a number gives the
   * payload's length (nbytes -1). */
  private async reply(seq: number, work: Promise<void | number> | void, nbytes = 0): Promise<void> {
    let error: DeviceError | null = null;
    try {
      const n = await work;
      if (nbytes < 0) nbytes = typeof n === "number" ? n : 0;
    } catch (e) {
      error = asDeviceError(e);
    }
    const b = this.backend;
    if (!error && this.pending) {
      error = this.pending;
      this.pending = null;
    }
    if (!error && b) {
      try {
        error = await b.takeError();
      } catch (e) {
        error = asDeviceError(e);
      }
    }
    if (!error && b?.lost) error = new DeviceError(STATUS_DEVICE_LOST, b.lost);
    if (error) {
      const full = encoder.encode(error.message);
      const message = full.subarray(0, Math.min(full.length, this.sink.capacity));
      this.sink.payload(message.length).set(message);
      this.sink.send(seq, error.status, message.length);
    } else {
      this.sink.send(seq, STATUS_OK, nbytes);
    }
  }
}
