/** The real /dev/cpu_dma_latency, read back by the machine-control tests. */
import { constants } from 'node:fs';
import { access, open } from 'node:fs/promises';

export const DMA_DEVICE = '/dev/cpu_dma_latency';

/** The kernel's current CPU latency bound: reading the device returns it as a 4-byte int. */
export async function currentDmaLatency(): Promise<number> {
  const handle = await open(DMA_DEVICE, 'r');
  try {
    const buf = Buffer.alloc(4);
    await handle.read(buf, 0, 4, null);
    return buf.readInt32LE(0);
  } finally {
    await handle.close();
  }
}

/** Whether this process may write the device (root): the tests that set it are skipped otherwise. */
export async function dmaDeviceWritable(): Promise<boolean> {
  return access(DMA_DEVICE, constants.W_OK).then(
    () => true,
    () => false,
  );
}
