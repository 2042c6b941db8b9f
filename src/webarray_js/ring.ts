/**
 * The SharedArrayBuffer transport: a byte ring of command records written by the
 * Python worker and consumed here, on the GPU thread, plus a data window for reply
 * payloads and a few control words (protocol.ts, CTRL_*).
 *
 * The producer copies whole batches into the ring and bumps HEAD (Atomics.notify);
 * a record may wrap around the end of the ring, and the consumer reassembles it.
 * The consumer sleeps in Atomics.waitAsync on HEAD, so the GPU thread's event loop
 * keeps running (WebGPU promises resolve there). Blocking requests are answered by
 * writing the payload into the window and then REPLY_SEQ, which the Python worker
 * waits on with Atomics.wait.
 */

import type { BackendKind } from "./backend";
import type { Processor, ReplySink } from "./processor";
import {
  CTRL_HEAD,
  CTRL_LOST,
  CTRL_PROGRESS,
  CTRL_REPLY_LEN,
  CTRL_REPLY_SEQ,
  CTRL_REPLY_STATUS,
  CTRL_TAIL,
  CTRL_WORDS,
  RECORD_ALIGN,
  type Status,
  TRANSPORT_LOST,
  TRANSPORT_TIMEOUT,
} from "./protocol";

/** Everything both ends need; structured-cloneable (postMessage it to a worker). */
export interface Channel {
  backend: BackendKind;
  control: SharedArrayBuffer;
  ring: SharedArrayBuffer;
  window: SharedArrayBuffer;
}

export interface ChannelSizes {
  /** bytes of the command ring (a power of two); default 4 MiB */
  ringBytes?: number;
  /** bytes of the reply window: reads larger than it come back in pieces; default 16 MiB */
  windowBytes?: number;
}

export const ISOLATION_HELP =
  "SharedArrayBuffer is not available: the page is not cross-origin isolated. Serve the page " +
  "(and its workers) with the headers 'Cross-Origin-Opener-Policy: same-origin' and " +
  "'Cross-Origin-Embedder-Policy: require-corp' (other resources need " +
  "'Cross-Origin-Resource-Policy: same-origin' or CORS), or use the JSPI transport.";

export function createChannel(backend: BackendKind, sizes: ChannelSizes = {}): Channel {
  if (typeof SharedArrayBuffer === "undefined" || !globalThis.crossOriginIsolated) {
    throw new Error(ISOLATION_HELP);
  }
  const ringBytes = sizes.ringBytes ?? 4 << 20;
  if (ringBytes < 1 << 16 || (ringBytes & (ringBytes - 1)) !== 0) {
    throw new RangeError(`ringBytes must be a power of two of at least 65536, got ${ringBytes}`);
  }
  return {
    backend,
    control: new SharedArrayBuffer(4 * CTRL_WORDS),
    ring: new SharedArrayBuffer(ringBytes),
    window: new SharedArrayBuffer(Math.max(sizes.windowBytes ?? 16 << 20, 1 << 16)),
  };
}

export class WindowSink implements ReplySink {
  readonly capacity: number;
  private readonly control: Int32Array;
  private readonly window: Uint8Array;

  constructor(channel: Channel) {
    this.control = new Int32Array(channel.control);
    this.window = new Uint8Array(channel.window);
    this.capacity = this.window.length;
  }

  payload(nbytes: number): Uint8Array {
    if (nbytes > this.capacity) {
      throw new RangeError(`a reply of ${nbytes} bytes does not fit the ${this.capacity}-byte window`);
    }
    return this.window.subarray(0, nbytes);
  }

  send(seq: number, status: Status, nbytes: number): void {
    Atomics.store(this.control, CTRL_REPLY_STATUS, status);
    Atomics.store(this.control, CTRL_REPLY_LEN, nbytes);
    Atomics.store(this.control, CTRL_REPLY_SEQ, seq);
    Atomics.notify(this.control, CTRL_REPLY_SEQ);
  }

  /** A piece of GPU work finished (the producer's waits go on while this moves). */
  progress(): void {
    Atomics.add(this.control, CTRL_PROGRESS, 1);
  }

  /** Tells Python the device is gone even when it is not waiting for a reply. */
  markLost(): void {
    Atomics.store(this.control, CTRL_LOST, 1);
    Atomics.notify(this.control, CTRL_REPLY_SEQ);
  }

  /** A fresh device replaced the lost one: Python's requests wait as usual again. */
  clearLost(): void {
    Atomics.store(this.control, CTRL_LOST, 0);
  }
}

/**
 * The Python worker's end: copies batches of records into the ring and waits for
 * replies. It blocks in Atomics.wait, so it runs off the main thread only.
 */
export class RingProducer {
  private readonly control: Int32Array;
  private readonly bytes: Uint8Array;
  private readonly window: Uint8Array;
  private head: number;

  constructor(channel: Channel) {
    this.control = new Int32Array(channel.control);
    this.bytes = new Uint8Array(channel.ring);
    this.window = new Uint8Array(channel.window);
    this.head = Atomics.load(this.control, CTRL_HEAD);
  }

  get windowBytes(): number {
    return this.window.length;
  }

  /** Copies src into the ring, waiting while it is full (at most timeoutMs without
   * progress). Returns 0, or TRANSPORT_TIMEOUT / TRANSPORT_LOST. */
  push(src: Uint8Array, timeoutMs: number): number {
    const { control, bytes } = this;
    const size = bytes.length;
    let done = 0;
    const live = new Liveness(control, timeoutMs);
    while (done < src.length) {
      const tail = Atomics.load(control, CTRL_TAIL);
      const free = size - ((this.head - tail) >>> 0);
      if (free === 0) {
        if (Atomics.load(control, CTRL_LOST)) return TRANSPORT_LOST;
        if (live.stalled()) return TRANSPORT_TIMEOUT;
        Atomics.wait(control, CTRL_TAIL, tail, 100);
        continue;
      }
      const k = Math.min(free, src.length - done);
      const pos = this.head & (size - 1);
      const first = Math.min(k, size - pos);
      bytes.set(src.subarray(done, done + first), pos);
      if (k > first) bytes.set(src.subarray(done + first, done + k), 0);
      this.head = (this.head + k) | 0;
      Atomics.store(control, CTRL_HEAD, this.head);
      Atomics.notify(control, CTRL_HEAD);
      done += k;
    }
    return 0;
  }

  /** Waits for the reply to request seq: its status, or TRANSPORT_LOST, or
   * TRANSPORT_TIMEOUT when the GPU thread made no progress for timeoutMs. A slow GPU
   * that keeps finishing work is waited for as long as it takes. */
  wait(seq: number, timeoutMs: number): number {
    const control = this.control;
    const live = new Liveness(control, timeoutMs);
    let lostSince = 0;
    for (;;) {
      const current = Atomics.load(control, CTRL_REPLY_SEQ);
      if (current === seq) return Atomics.load(control, CTRL_REPLY_STATUS);
      const now = performance.now();
      if (Atomics.load(control, CTRL_LOST)) {
        // a lost device still answers (with its reason); a stopped GPU thread does not
        lostSince ||= now;
        if (now - lostSince > 2000) return TRANSPORT_LOST;
      }
      if (live.stalled()) return TRANSPORT_TIMEOUT;
      Atomics.wait(control, CTRL_REPLY_SEQ, current, 200);
    }
  }

  /** The payload of the last reply. */
  payload(): Uint8Array {
    return this.window.subarray(0, Atomics.load(this.control, CTRL_REPLY_LEN));
  }
}

/** Whether the GPU thread has been still for longer than a timeout: neither consumed a
 * record (CTRL_TAIL) nor finished a piece of GPU work (CTRL_PROGRESS). */
class Liveness {
  private tail: number;
  private progress: number;
  private since = performance.now();

  constructor(
    private readonly control: Int32Array,
    private readonly timeoutMs: number,
  ) {
    this.tail = Atomics.load(control, CTRL_TAIL);
    this.progress = Atomics.load(control, CTRL_PROGRESS);
  }

  stalled(): boolean {
    const tail = Atomics.load(this.control, CTRL_TAIL);
    const progress = Atomics.load(this.control, CTRL_PROGRESS);
    const now = performance.now();
    if (tail !== this.tail || progress !== this.progress) {
      this.tail = tail;
      this.progress = progress;
      this.since = now;
    }
    return now - this.since > this.timeoutMs;
  }
}

/** Consumes the ring until stop() is called; resolves then. */
export class RingConsumer {
  private readonly control: Int32Array;
  private readonly bytes: Uint8Array;
  private readonly words: Uint32Array;
  private readonly mask: number;
  private scratch = new ArrayBuffer(1 << 16);
  private stopped = false;

  constructor(
    channel: Channel,
    private readonly processor: Processor,
  ) {
    this.control = new Int32Array(channel.control);
    this.bytes = new Uint8Array(channel.ring);
    this.words = new Uint32Array(channel.ring);
    this.mask = channel.ring.byteLength - 1;
  }

  stop(): void {
    this.stopped = true;
    Atomics.notify(this.control, CTRL_HEAD);
  }

  async run(): Promise<void> {
    const control = this.control;
    let tail = Atomics.load(control, CTRL_TAIL);
    let consumed = 0;
    while (!this.stopped) {
      const head = Atomics.load(control, CTRL_HEAD);
      const available = (head - tail) >>> 0;
      const pos = tail & this.mask;
      const size = available >= RECORD_ALIGN ? this.words[(pos >>> 2) + 1] : 0;
      if (available < RECORD_ALIGN || available < size) {
        this.processor.idle();
        Atomics.notify(control, CTRL_TAIL);
        consumed = 0;
        const wait = Atomics.waitAsync(control, CTRL_HEAD, head);
        if (wait.async) await wait.value;
        continue;
      }
      if (size < RECORD_ALIGN || size % RECORD_ALIGN !== 0 || size > this.bytes.length / 2) {
        throw new Error(`corrupt command ring: record of ${size} bytes at position ${pos}`);
      }
      const [words, bytes] = this.record(pos, size);
      const done = this.processor.handle(words, bytes);
      tail = (tail + size) | 0;
      Atomics.store(control, CTRL_TAIL, tail);
      consumed += size;
      if (consumed >= this.bytes.length / 4) {
        Atomics.notify(control, CTRL_TAIL);
        consumed = 0;
      }
      if (done) {
        Atomics.notify(control, CTRL_TAIL);
        await done;
      }
    }
  }

  /** Views of the record at pos; one that wraps around the end is copied out first. */
  private record(pos: number, size: number): [Uint32Array, Uint8Array] {
    const end = pos + size;
    if (end <= this.bytes.length) {
      return [this.words.subarray(pos >>> 2, end >>> 2), this.bytes.subarray(pos, end)];
    }
    if (this.scratch.byteLength < size) this.scratch = new ArrayBuffer(size);
    const out = new Uint8Array(this.scratch, 0, size);
    const first = this.bytes.length - pos;
    out.set(this.bytes.subarray(pos), 0);
    out.set(this.bytes.subarray(0, size - first), first);
    return [new Uint32Array(this.scratch, 0, size >>> 2), out];
  }
}
