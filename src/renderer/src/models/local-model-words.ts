/*
 * Models on this computer in words: sizes of windows, times left, whether a model fits, the machine, and where a
 * download is.
 */

import { counted } from '../../../shared/counts';
import type { MachineInfo } from '../../../shared/local-models';
import { sizeWords, type DownloadView, type ModelFit } from '../../../shared/model-catalogue';

/** A window in thousands of tokens: "16k". */
export function tokensWords(tokens: number): string {
  return tokens >= 1024 ? `${Math.round(tokens / 1024)}k` : String(tokens);
}

/** A time left for people: "45 s", "3 min", "1 h 10 min". */
export function durationWords(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** How a model sits on this computer, in words. */
export function fitWords(fit: ModelFit): string {
  switch (fit) {
    case 'fits':
      return 'fits this computer';
    case 'tight':
      return 'tight: little memory left for other apps';
    case 'too_large':
      return 'too large for this computer';
  }
}

/** The machine in one line: "This computer: 16.0 GB of memory, 8 cores, no GPU found." */
export function machineWords(machine: MachineInfo): string {
  const gpu =
    machine.gpu === null
      ? 'no GPU found'
      : `a ${machine.gpu === 'metal' ? 'Metal' : machine.gpu === 'cuda' ? 'CUDA' : 'Vulkan'} GPU${machine.gpuMemoryBytes ? ` with ${sizeWords(machine.gpuMemoryBytes)}` : ''}`;
  return `This computer: ${sizeWords(machine.totalMemoryBytes)} of memory, ${counted(machine.cpuCores, 'core')}, ${gpu}.`;
}

/** Where a download is, in words: "1.2 GB of 2.5 GB · 12.0 MB/s · 2 min left". */
export function progressWords(view: DownloadView): string {
  const amount = view.totalBytes ? `${sizeWords(view.receivedBytes)} of ${sizeWords(view.totalBytes)}` : sizeWords(view.receivedBytes);
  switch (view.state) {
    case 'downloading':
      return [
        amount,
        view.bytesPerSecond !== null ? `${sizeWords(view.bytesPerSecond)}/s` : null,
        view.secondsLeft !== null ? `${durationWords(view.secondsLeft)} left` : null,
      ]
        .filter((part) => part !== null)
        .join(' · ');
    case 'paused':
      return `Paused at ${amount}`;
    case 'interrupted':
      return `Stopped at ${amount}`;
    case 'verifying':
      return view.checksum === 'none' ? 'Checking the file (no checksum to check against)…' : 'Checking the file’s checksum…';
    case 'done':
      return view.checksum === 'none' ? 'Downloaded (no checksum to check against)' : 'Downloaded and checked';
    case 'failed':
      return 'Failed';
  }
}
