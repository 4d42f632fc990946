/*
 * A command's output in a real terminal (xterm.js, drawn with WebGL where the machine has it), written at most a
 * frame's worth per frame.
 *
 * Also the spare terminal made ahead of time while the page is idle, so a command's card shows its terminal at once.
 */

import { FitAddon } from '@xterm/addon-fit';
import { WebglAddon } from '@xterm/addon-webgl';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import { DisposableStore, toDisposable, type Disposable } from '../../../shared/lifecycle';
import { animationFrame, idleCallback, observeResize, scheduleIn, useDisposables } from '../disposables';
import { cancelSequence, nextChunk, type ScanState } from './terminal-chunks';

const scrollback = 5_000;
/** The terminal is as tall as its output, up to this many rows; longer output scrolls. */
const maxRows = 14;
const rowHeight = 15;

/** Rows the output fills, counted up to the limit only (output can be a megabyte). */
function outputRows(output: string): number {
  let rows = 1;
  for (let at = output.indexOf('\n'); at !== -1 && rows < maxRows; at = output.indexOf('\n', at + 1)) if (at < output.length - 1) rows += 1;
  return rows;
}
/** Characters handed to the terminal per animation frame: it parses and draws them well inside the frame. */
const perFrame = 24 * 1024;

/** Whether the GPU draws WebGL; a software rasterizer (SwiftShader, llvmpipe) is slower than the DOM renderer. */
let hardwareWebgl: boolean | null = null;
function hasHardwareWebgl(): boolean {
  if (hardwareWebgl !== null) return hardwareWebgl;
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    const info = gl?.getExtension('WEBGL_debug_renderer_info');
    const renderer = gl && info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
    hardwareWebgl = gl !== null && !/swiftshader|llvmpipe|software/i.test(renderer);
    gl?.getExtension('WEBGL_lose_context')?.loseContext();
  } catch {
    hardwareWebgl = false;
  }
  return hardwareWebgl;
}

interface Made {
  readonly terminal: Terminal;
  readonly fit: FitAddon;
}

function makeTerminal(): Made {
  const terminal = new Terminal({
    convertEol: true,
    disableStdin: true,
    scrollback,
    rows: 12,
    fontSize: 12,
    cursorInactiveStyle: 'none',
    theme: { background: '#0d1117' },
  });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  return { terminal, fit };
}

function openTerminal({ terminal }: Made, parent: HTMLElement): void {
  terminal.open(parent);
  if (!hasHardwareWebgl()) return;
  try {
    const webgl = new WebglAddon();
    webgl.onContextLoss(() => webgl.dispose());
    terminal.loadAddon(webgl);
  } catch {
    // No WebGL after all: the DOM renderer draws it.
  }
}

/** Runs `work` in the first idle moment long enough for it; until then the wait belongs to `owner`. */
function whenIdle(owner: DisposableStore, work: () => void): void {
  const attempt = (deadline: IdleDeadline): void => {
    if (deadline.timeRemaining() < 20 && !deadline.didTimeout) {
      scheduleIn(owner, (run) => idleCallback(run, { timeout: 10_000 }), attempt);
      return;
    }
    work();
  };
  scheduleIn(owner, (run) => idleCallback(run, { timeout: 10_000 }), attempt);
}

/**
 * One terminal made and opened ahead of time, out of sight, while the page is idle: a command's
 * card then shows its terminal without the frame it would take to build one. It owns the spare
 * until a card takes it, the element the spare waits in, and the preparation under way; disposing
 * it lets go of all three.
 */
export class SpareTerminal implements Disposable {
  private readonly lifetime = new DisposableStore();
  private spare: Made | null = null;
  /** The steps of the preparation under way, if one is. */
  private preparing: DisposableStore | null = null;
  private parkingElement: HTMLElement | null = null;

  /** Prepares the next terminal in idle moments, one step per moment, unless one is ready or on its way. */
  warm(): void {
    if (this.spare || this.preparing || this.lifetime.isDisposed || typeof requestIdleCallback !== 'function') return;
    const steps = this.lifetime.add(new DisposableStore());
    this.preparing = steps;
    whenIdle(steps, () => {
      hasHardwareWebgl();
      whenIdle(steps, () => {
        const made = makeTerminal();
        steps.add(made.terminal);
        whenIdle(steps, () => {
          const parent = document.createElement('div');
          parent.className = 'terminal';
          this.parking().append(parent);
          openTerminal(made, parent);
          // Ready: the spare is the lifetime's now, until it is taken.
          steps.forget(made.terminal);
          this.lifetime.add(made.terminal);
          this.spare = made;
          this.preparing = null;
          void this.lifetime.release(steps);
        });
      });
    });
  }

  /** The spare moved into `parent`, for the caller to own from now on; null when none is ready. */
  take(parent: HTMLElement): Made | null {
    const taken = this.spare;
    this.spare = null;
    if (taken?.terminal.element) {
      this.lifetime.forget(taken.terminal);
      const holder = taken.terminal.element.parentElement;
      parent.append(taken.terminal.element);
      holder?.remove();
    }
    this.warm();
    return taken?.terminal.element ? taken : null;
  }

  dispose(): Promise<void> {
    this.spare = null;
    this.preparing = null;
    return this.lifetime.dispose();
  }

  private parking(): HTMLElement {
    if (this.parkingElement) return this.parkingElement;
    const element = document.createElement('div');
    element.className = 'terminal-parking';
    element.setAttribute('aria-hidden', 'true');
    document.body.append(element);
    this.lifetime.add(toDisposable(() => element.remove()));
    this.parkingElement = element;
    return element;
  }
}

/** The spare terminal of the window, when the app made one. */
export const SpareTerminalContext = createContext<SpareTerminal | null>(null);

/**
 * Puts a terminal into `parent`, owned by `owner`: the spare prepared ahead of time, at once;
 * otherwise one built a step per task (make, check the GPU, open), so that no frame waits for all
 * of it. Disposing `owner` cancels a build still under way and disposes of the terminal.
 */
function placeTerminal(owner: DisposableStore, spares: SpareTerminal | null, parent: HTMLElement, placed: (made: Made) => void): void {
  const taken = spares?.take(parent) ?? null;
  if (taken) {
    owner.add(taken.terminal);
    placed(taken);
    return;
  }
  owner.timeout(() => {
    const made = makeTerminal();
    owner.add(made.terminal);
    owner.timeout(() => {
      hasHardwareWebgl();
      owner.timeout(() => {
        openTerminal(made, parent);
        placed(made);
      }, 0);
    }, 0);
  }, 0);
}

/**
 * A command's output in a real terminal (colours, cursor movement, progress bars), drawn with WebGL
 * where the machine has it. Output is written as it grows, at most a frame's worth per frame.
 */
export function TerminalView({ output, total, epoch, label }: { output: string; total: number; epoch: number; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const spares = useContext(SpareTerminalContext);
  const state = useRef<{
    terminal: Terminal;
    fit: FitAddon;
    /** Owns the terminal, its resize observer and the frame the output waits for. */
    owner: DisposableStore;
    written: number;
    epoch: number;
    queue: string;
    scan: ScanState;
    frame: Disposable | null;
  } | null>(null);
  const [ready, setReady] = useState(false);

  useDisposables(
    (owner) => {
      const element = host.current;
      if (!element) return;
      // Disposed last, after the terminal: a terminal placed again (a remount) writes the output afresh.
      owner.add(
        toDisposable(() => {
          state.current = null;
          setReady(false);
        }),
      );
      placeTerminal(owner, spares, element, ({ terminal, fit }) => {
        try {
          fit.fit();
        } catch {
          // Not laid out yet; the size is fixed when it is.
        }
        state.current = { terminal, fit, owner, written: 0, epoch: -1, queue: '', scan: 'ground', frame: null };
        owner.add(
          observeResize(element, () => {
            try {
              fit.fit();
            } catch {
              // Hidden: nothing to fit.
            }
          }),
        );
        setReady(true);
      });
    },
    [spares],
  );

  useEffect(() => {
    const current = state.current;
    if (!current) return;
    // The queue is drained a frame's worth at a time, so a flood of output never blocks the page.
    const pump = (): void => {
      current.frame = null;
      if (current.queue.length === 0) return;
      const chunk = nextChunk(current.queue, perFrame, current.scan);
      current.queue = chunk.rest;
      current.scan = chunk.state;
      current.terminal.write(chunk.write);
      if (current.queue.length > 0) current.frame = scheduleIn(current.owner, animationFrame, pump);
    };
    // Output only grows within an epoch: what is new is its last `total - written` characters.
    let delta: string;
    if (current.epoch !== epoch || total < current.written || total - current.written > output.length) {
      // The finished call's output replaced the live one (cut for the model), or more arrived than is kept: show it afresh.
      if (current.written > 0 || current.epoch !== -1) current.terminal.reset();
      current.queue = '';
      current.scan = 'ground';
      delta = output;
    } else {
      delta = output.slice(output.length - (total - current.written));
    }
    current.epoch = epoch;
    current.written = total;
    if (delta.length === 0) return;
    current.queue += delta;
    // Behind by more than the view keeps: what the terminal would never catch up on is skipped, as said.
    if (current.queue.length > 4 * 1024 * 1024) {
      // Any sequence under way is cancelled, and what is kept starts at a line's start, not halfway through one.
      const kept = current.queue.slice(-1024 * 1024);
      current.queue = `${cancelSequence}\r\n[… earlier output skipped …]\r\n${kept.slice(kept.indexOf('\n') + 1)}`;
    }
    current.frame ??= scheduleIn(current.owner, animationFrame, pump);
  }, [output, total, epoch, ready]);

  const rows = outputRows(output);
  return (
    <div
      className="terminal"
      ref={host}
      role="log"
      aria-label={label}
      data-output-length={output.length}
      style={{ height: `${rows * rowHeight + 10}px` }}
    />
  );
}
