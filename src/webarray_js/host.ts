/**
 * The GPU thread's side of the SharedArrayBuffer transport: creates the backend and
 * serves the channel's command ring. Runs on the page's main thread or in the
 * dedicated GPU worker (gpu-worker.ts); docs/browser.md says which is the default
 * and why.
 */

import type { Backend } from "./backend";
import { createBackend } from "./backends";
import { Processor } from "./processor";
import { DeviceError, STATUS_INTERNAL } from "./protocol";
import { type Channel, RingConsumer, WindowSink } from "./ring";

export interface Host {
  /** null when the backend failed to start (Python then gets the error at its INFO). */
  readonly backend: Backend | null;
  readonly startError: DeviceError | null;
  stop(): void;
}

export async function serveChannel(channel: Channel): Promise<Host> {
  const sink = new WindowSink(channel);
  let backend: Backend | null = null;
  let startError: DeviceError | null = null;
  try {
    backend = await createBackend(channel.backend);
    backend.onLost = () => sink.markLost();
    backend.onProgress = () => sink.progress();
  } catch (e) {
    startError =
      e instanceof DeviceError
        ? e
        : new DeviceError(STATUS_INTERNAL, `starting the ${channel.backend} backend failed: ${String(e)}`);
  }
  const consumer = new RingConsumer(channel, new Processor(backend, sink, startError));
  consumer.run().catch((e: unknown) => {
    // A corrupt ring cannot be resynchronised: report it as a lost device.
    console.error("webarray GPU host stopped:", e);
    sink.markLost();
  });
  return { backend, startError, stop: () => consumer.stop() };
}
