// What a benchmark ran on, written into its results JSON beside the figures: the tables of docs/performance.md
// (bench/readmeTables.ts) name the machine of each figure they quote.
import { cpus, freemem, loadavg, totalmem } from 'node:os';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  /** Free memory when the run started (the OS page cache counts as used). */
  freeMemoryGb: number;
  node: string;
  platform: string;
  /** The 1-minute load average when the run started: above the CPU count, something else was running. */
  loadAverage: number;
}

export function machine(): Machine {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    freeMemoryGb: Math.round(freemem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverage: Math.round(loadavg()[0]! * 100) / 100,
  };
}
