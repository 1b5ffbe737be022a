import { type FileHandle, open } from 'node:fs/promises';

/** Bytes read at a time: 1 MiB pieces (the 64 KiB default made a download half as fast as reading the file). */
const PIECE = 2 ** 20;

/**
 * A file's bytes `start`..`end` (inclusive) as a response body, read into
 * fresh 1 MiB pieces as the client takes them. Pulled straight from a file
 * handle, it sent a chunk 1.4-2 times as fast as `Readable.toWeb` over a
 * read stream (2026-11-29, loopback, a 28 MiB file). The handle is closed
 * at the end, on a cut connection, or on a read error.
 */
export function fileBody(path: string, start: number, end: number): ReadableStream<Uint8Array> {
  let file: FileHandle | undefined;
  let at = start;
  const close = async () => {
    const open = file;
    file = undefined;
    await open?.close().catch(() => {});
  };
  return new ReadableStream<Uint8Array>(
    {
      async start() {
        file = await open(path, 'r');
      },
      async pull(controller) {
        try {
          const want = Math.min(PIECE, end + 1 - at);
          const { bytesRead, buffer } = want > 0 ? await file!.read(Buffer.allocUnsafe(want), 0, want, at) : { bytesRead: 0, buffer: Buffer.alloc(0) };
          if (bytesRead === 0) {
            await close();
            controller.close();
            return;
          }
          at += bytesRead;
          controller.enqueue(buffer.subarray(0, bytesRead));
        } catch (err) {
          await close();
          controller.error(err);
        }
      },
      cancel: close,
    },
    { highWaterMark: 2 },
  );
}
