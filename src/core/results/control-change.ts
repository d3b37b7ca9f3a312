/**
 * One machine control changed for a run (src/machine/controls.ts applies them), as results.json records it
 * in `environment.controls`: part of the conditions the run was measured under.
 */
export interface ControlChange {
  control: 'cpuDmaLatency' | 'governor';
  /** The file changed. */
  file: string;
  /** The value before (undefined for cpu_dma_latency: the request simply ends on restore). */
  from?: string;
  to: string;
}
