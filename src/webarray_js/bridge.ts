/**
 * The Python worker's side: makes webarray's executor (src/webarray/executors/
 * browser.py) reach the GPU. connectWebarray registers the JS module
 * `_webarray_bridge` in Pyodide, for one of two transports:
 *
 * - "sab": the device lives on another thread (see host.ts); Python writes command
 *   records into the shared ring and blocks in Atomics.wait for replies.
 * - "jspi": the device lives on this thread; Python hands batches of the same records
 *   to execute() and blocks on the returned promise with pyodide.ffi.run_sync, which
 *   needs JavaScript Promise Integration (WebAssembly.Suspending).
 *
 * This module is what an existing Pyodide worker imports (the "worker" entry).
 */

import type { PyodideAPI } from "pyodide";
import type { Backend, BackendKind } from "./backend";
import { createBackend, resolveBackend } from "./backends";
import { Processor, type ReplySink } from "./processor";
import { BRIDGE_MODULE, DeviceError, STATUS_INTERNAL, STATUS_OK, type Status } from "./protocol";

export { BRIDGE_MODULE };
import { type Channel, RingProducer } from "./ring";

export type Transport = "sab" | "jspi";

/** What connectWebarray needs: a channel served by a GPU host, or a JSPI request. */
export type Connection =
  | { transport: "sab"; channel: Channel }
  | { transport: "jspi"; backend: BackendKind | "auto" };

export function jspiAvailable(): boolean {
  return typeof (WebAssembly as unknown as { Suspending?: unknown }).Suspending === "function";
}

/** Makes `import webarray` in this Pyodide use the GPU; returns the backend in use. */
export async function connectWebarray(pyodide: PyodideAPI, connection: Connection): Promise<BackendKind> {
  let bridge: SharedBridge | DirectBridge;
  if (connection.transport === "sab") {
    bridge = new SharedBridge(connection.channel);
  } else {
    if (!jspiAvailable()) {
      throw new Error(
        "the JSPI transport needs JavaScript Promise Integration (WebAssembly.Suspending), " +
          "which this browser lacks; use the 'sab' transport",
      );
    }
    bridge = await DirectBridge.create(await resolveBackend(connection.backend));
  }
  pyodide.registerJsModule(BRIDGE_MODULE, bridge);
  // webarray picks its default device from WEBARRAY_DEVICE (src/webarray/_core/device.py)
  pyodide.runPython(`import os; os.environ.setdefault("WEBARRAY_DEVICE", ${JSON.stringify(bridge.backend)})`);
  return bridge.backend;
}

/** Installs a pure-Python wheel (no micropip needed) into site-packages. */
export async function installWheel(pyodide: PyodideAPI, url: string | URL): Promise<void> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`fetching the wheel ${String(url)} failed: HTTP ${response.status}`);
  unpackWheel(pyodide, new Uint8Array(await response.arrayBuffer()));
}

/** Installs a pure-Python wheel's bytes into site-packages. */
export function unpackWheel(pyodide: PyodideAPI, bytes: Uint8Array): void {
  const site = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')") as string;
  pyodide.unpackArchive(bytes, "wheel", { extractDir: site });
}

/**
 * The module _webarray_bridge as Python (src/webarray/executors/browser.py) sees it;
 * attribute names are the interface. Python writes a batch of records into input(n)
 * and hands it over with send(n) or, when the batch ends in a request, request(n, seq).
 */
abstract class Bridge {
  abstract readonly transport: Transport;
  abstract readonly backend: BackendKind;
  /** the largest reply payload, so the largest read of one request */
  abstract readonly windowBytes: number;
  /** the largest record */
  abstract readonly maxRecord: number;
  private staging = new ArrayBuffer(1 << 16);

  /** Room for a batch of nbytes. */
  input(nbytes: number): Uint8Array {
    if (nbytes > this.staging.byteLength) this.staging = new ArrayBuffer(2 ** Math.ceil(Math.log2(nbytes)));
    return new Uint8Array(this.staging, 0, nbytes);
  }

  protected batch(nbytes: number): Uint8Array {
    return new Uint8Array(this.staging, 0, nbytes);
  }
}

/** The "sab" transport: the device on another thread, reached through the ring. */
class SharedBridge extends Bridge {
  readonly transport = "sab";
  readonly backend: BackendKind;
  readonly windowBytes: number;
  readonly maxRecord: number;
  private readonly producer: RingProducer;

  constructor(channel: Channel) {
    super();
    this.backend = channel.backend;
    this.producer = new RingProducer(channel);
    this.windowBytes = this.producer.windowBytes;
    this.maxRecord = channel.ring.byteLength / 2;
  }

  /** 0, or a negative transport failure (TRANSPORT_TIMEOUT, TRANSPORT_LOST). */
  send(nbytes: number, timeoutMs: number): number {
    return this.producer.push(this.batch(nbytes), timeoutMs);
  }

  /** The reply's status, or a negative transport failure. */
  request(nbytes: number, seq: number, timeoutMs: number): number {
    const pushed = this.producer.push(this.batch(nbytes), timeoutMs);
    return pushed < 0 ? pushed : this.producer.wait(seq, timeoutMs);
  }

  payload(): Uint8Array {
    return this.producer.payload();
  }
}

class LocalSink implements ReplySink {
  readonly capacity = 0x7fffffff;
  status: Status = STATUS_OK;
  length = 0;
  buffer = new Uint8Array(1 << 16);

  payload(nbytes: number): Uint8Array {
    if (nbytes > this.buffer.length) this.buffer = new Uint8Array(2 ** Math.ceil(Math.log2(nbytes)));
    return this.buffer.subarray(0, nbytes);
  }

  send(_seq: number, status: Status, nbytes: number): void {
    this.status = status;
    this.length = nbytes;
  }
}

/** The "jspi" transport: the device on this thread; Python blocks with run_sync. */
class DirectBridge extends Bridge {
  readonly transport = "jspi";
  readonly windowBytes = 1 << 30;
  readonly maxRecord = 1 << 30;
  private readonly sink = new LocalSink();
  private readonly processor: Processor;

  static async create(kind: BackendKind): Promise<DirectBridge> {
    try {
      const device = await createBackend(kind);
      device.holdBack = false; // send() runs its batch at once (no request to wait on)
      return new DirectBridge(kind, device, null);
    } catch (e) {
      const error =
        e instanceof DeviceError ? e : new DeviceError(STATUS_INTERNAL, `starting ${kind} failed: ${String(e)}`);
      return new DirectBridge(kind, null, error);
    }
  }

  private constructor(
    readonly backend: BackendKind,
    device: Backend | null,
    startError: DeviceError | null,
  ) {
    super();
    this.processor = new Processor(device, this.sink, startError);
  }

  send(nbytes: number): void {
    // a batch without a request completes synchronously
    void this.execute(nbytes);
  }

  /** The reply's status (a promise: Python waits for it with run_sync). */
  async request(nbytes: number): Promise<number> {
    await this.execute(nbytes);
    return this.sink.status;
  }

  payload(): Uint8Array {
    return this.sink.buffer.subarray(0, this.sink.length);
  }

  private execute(nbytes: number): Promise<void> | undefined {
    const bytes = this.batch(nbytes);
    const words = new Uint32Array(bytes.buffer, 0, nbytes >>> 2);
    let offset = 0;
    const step = (): Promise<void> | undefined => {
      while (offset < nbytes) {
        const size = words[(offset >>> 2) + 1];
        const done = this.processor.handle(
          words.subarray(offset >>> 2, (offset + size) >>> 2),
          bytes.subarray(offset, offset + size),
        );
        offset += size;
        if (done) return done.then(step);
      }
      this.processor.idle();
      return undefined;
    };
    return step();
  }
}
